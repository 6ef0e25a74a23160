import Fastify, { type FastifyInstance } from 'fastify';
import { instrumentHttp, ServiceMetrics } from './metrics';

describe('HTTP metrics', () => {
  let app: FastifyInstance;
  let metrics: ServiceMetrics;

  beforeAll(async () => {
    metrics = new ServiceMetrics();
    app = Fastify();
    instrumentHttp(app, metrics);
    app.get('/api/v1/students/:studentId', async () => ({ ok: true }));
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/metrics', async () => 'metrics');
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
  });

  const series = async (name: string) => (await metrics.render()).split('\n').filter((line) => line.startsWith(name));

  it('counts requests by route pattern, never the raw URL, in the duration histogram', async () => {
    await app.inject('/api/v1/students/s-1');
    await app.inject('/api/v1/students/s-2?x=1');
    await app.inject('/nowhere/7');
    expect(await series('http_request_duration_seconds_count')).toEqual([
      'http_request_duration_seconds_count{method="GET",route="/api/v1/students/:studentId",status="200"} 2',
      'http_request_duration_seconds_count{method="GET",route="(unmatched)",status="404"} 1',
    ]);
  });

  it('has no separate request counter: the histogram counts them', async () => {
    expect(await series('http_requests_total')).toEqual([]);
  });

  it('leaves probes and the metrics endpoint out', async () => {
    await app.inject('/healthz');
    await app.inject('/metrics');
    const text = (await series('http_request_duration_seconds')).join('\n');
    expect(text).not.toContain('/healthz');
    expect(text).not.toContain('/metrics');
  });

  it('includes the default process metrics, in its own registry', async () => {
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await series('process_cpu_user_seconds_total')).toHaveLength(1);
    expect(await series('nodejs_eventloop_lag_seconds')).toHaveLength(1);
    expect((await new ServiceMetrics().render())).not.toContain('/api/v1/students');
  });
});
