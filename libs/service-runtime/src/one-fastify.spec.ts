import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The services' Fastify is the one Nest's adapter loads. @nestjs/platform-fastify pins an exact
 * Fastify (5.11.3 in 11.2.8) whose body parser kept every POST's request and reply alive until a
 * full GC (README, Benchmarks: "Fastify 5.12.8"); package.json's `overrides` makes the adapter use
 * the root Fastify instead. Without the override npm nests the pinned copy under the adapter and
 * the services silently run on it.
 */
describe('the Fastify the services run on', () => {
  const adapterDir = dirname(require.resolve('@nestjs/platform-fastify/package.json'));
  const fastifyOf = (fromDir: string) => require.resolve('fastify/package.json', { paths: [fromDir] });

  it('is the root one, for Nest\'s adapter as for our own code', () => {
    expect(fastifyOf(adapterDir)).toBe(require.resolve('fastify/package.json'));
  });

  it('is 5.12 or later (its body parser binds no AsyncResource per request)', () => {
    const { version } = JSON.parse(readFileSync(fastifyOf(adapterDir), 'utf8')) as { version: string };
    const [major, minor] = version.split('.').map(Number);
    expect(major > 5 || (major === 5 && minor >= 12)).toBe(true);
  });
});
