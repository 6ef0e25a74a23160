import { ResourceMetrics } from './resource-metrics';

function lookups(text: string, layer: string, result: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`introspection_cache_total{layer="${layer}",result="${result}"} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('ResourceMetrics: cache lookups', () => {
  it('shows every series from the start, at 0', async () => {
    const text = await new ResourceMetrics().render();
    for (const layer of ['memory', 'redis']) for (const result of ['hit', 'miss']) expect(lookups(text, layer, result)).toBe(0);
  });

  it('counts each lookup once, whatever the number of scrapes', async () => {
    const metrics = new ResourceMetrics();
    metrics.cacheLookup('memory', 'hit');
    metrics.cacheLookup('memory', 'hit');
    metrics.cacheLookup('redis', 'miss');
    const first = await metrics.render();
    expect([lookups(first, 'memory', 'hit'), lookups(first, 'memory', 'miss'), lookups(first, 'redis', 'miss')]).toEqual([2, 0, 1]);

    metrics.cacheLookup('memory', 'hit');
    const second = await metrics.render();
    const third = await metrics.render();
    expect([lookups(second, 'memory', 'hit'), lookups(second, 'redis', 'miss')]).toEqual([3, 1]);
    expect([lookups(third, 'memory', 'hit'), lookups(third, 'redis', 'miss')]).toEqual([3, 1]);
  });
});
