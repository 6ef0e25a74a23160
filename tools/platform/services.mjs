// The services the launcher runs, in start order. A service whose app or Prisma schema does
// not exist yet is skipped, so the list can name services still to be written.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICES = [
  {
    name: 'auth',
    project: 'auth-server',
    schema: 'auth',
    portVar: 'AUTH_PORT',
    defaultPort: 3001,
    urlVar: 'AUTH_SERVER_URL',
    databaseUrlVar: 'AUTH_DATABASE_URL',
  },
  {
    name: 'resource',
    project: 'resource-server',
    schema: 'resource',
    portVar: 'RESOURCE_PORT',
    defaultPort: 3002,
    urlVar: 'RESOURCE_SERVER_URL',
    databaseUrlVar: 'RESOURCE_DATABASE_URL',
  },
];

export const GATEWAY = { name: 'gateway', project: 'gateway' };

export const mainOf = (root, project) => join(root, 'dist/apps', project, 'main.js');

export function existingServices(root) {
  return SERVICES.filter(
    (service) =>
      existsSync(join(root, 'apps', service.project, 'project.json')) &&
      existsSync(join(root, 'prisma', service.schema, 'schema.prisma')),
  );
}

export function portOf(service, env = process.env) {
  return Number(env[service.portVar] || service.defaultPort);
}

/**
 * V8 flags of the service processes that `npm start` runs (issue 12), and the bench with them.
 * --max-old-space-size=384: a ceiling, not a reservation; each service's old generation holds
 *   20-50 MB after GC, so a leak ends in a crash with a clear message rather than in swap.
 * The young generation is left at V8's default. On Node 24 that is two 64 MB semi-spaces (V8's
 * --scavenger-max-new-space-capacity-mb=32, doubled without pointer compression; Node 20: 16 MB):
 * after a burst the auth server holds ~105 MB of new_space resident (~310-340 MB RSS), still after
 * 30 s idle (bench). --max-semi-space-size=16, side by side with the default over 12 interleaved
 * rounds (issue 12): RSS 283 → 205 MB, introspection +11.5 µs of CPU (~10 %, 10 of 12 rounds
 * higher), refresh +7 µs (within the noise). Measured again on Fastify 5.12.8, whose body parser
 * no longer keeps every POST's request alive past young collections (3 rounds per case, runs
 * alternated): RSS after the cases 318-334 → 242 MB (16) and 224 MB (8), introspection the same
 * (68-70 µs), refresh +11 to +25 µs (130-141 → 152-155 µs, ~12 %), the case nearest its line.
 * Not taken for servers: the memory costs less than the CPU, and the auth server holds 185-210 MB
 * with an empty young generation (just after start; at rest after the idle release: the node
 * binary, Prisma's wasm query compiler, the old generation), so 200 MB is out of reach either way.
 */
/*
 * --expose-gc: for the one collection a service runs of its own, once it has been quiet for 10 s
 * after serving requests (libs/lifecycle, releaseMemoryWhenIdle): V8's last-resort GC, which
 * gives the young generation and pooled pages back (the auth server after the bench's load: ~350 MB,
 * 105 MB of it the empty young generation, kept until the next GC, which an idle process never
 * runs). Without the flag a service never forces a GC.
 */
export const SERVICE_NODE_ARGS = Object.freeze(['--max-old-space-size=384', '--expose-gc']);

/**
 * The embedded mode adds --max-semi-space-size=4. V8's default lets the young generation grow to
 * two 16 MB semi-spaces (Node 20; 64 MB on Node 24), and after any burst of requests all 32 MB stay resident (new_space was
 * 31-32 MB physical in every service after a short workload while 2-10 MB of it was live); 4 MB
 * caps it at 8 MB, ~20 MB less per service, which the embedded platform's 600 MB needs. It is not
 * for servers under load: scavenges four times as often cost ~20 % more CPU per request (bench,
 * same run: anonymous course list 301 → 378 µs, refresh grant 619 → 760 µs). Under sustained load
 * the auth server's heap grew to 93-193 MB (49-56 MB live after GC) with every semi-space tried
 * (16, 8, 4, 2 MB): V8's heap-growing heuristic at a high allocation rate, not the young generation.
 */
/*
 * It adds --optimize-for-size as well: V8 then grows its heaps and keeps compiled code for a
 * smaller footprint. The embedded platform after embedded-memory.mjs's workload (Node 20, 3 runs
 * each, same day): 588-614 MB without it (the previous commit's code: 591-612), 571-586 MB with
 * it, ~20 MB of it the auth server's and ~7 MB the gateway's. Its cost is CPU: 50-60 % more per
 * request on servers (bench on real PostgreSQL, same session: course list 174-201 → 211-266 µs,
 * introspection 129-148 → 209-233, refresh 292-346 → 430-535), so the embedded mode only, where
 * one person's requests wait on PGlite, not on the service's CPU.
 */
export const EMBEDDED_SERVICE_NODE_ARGS = Object.freeze([...SERVICE_NODE_ARGS, '--max-semi-space-size=4', '--optimize-for-size']);

/**
 * glibc malloc settings of every service process, read by glibc at process start (so they can
 * only be given to child processes). Without them each thread that allocates (libuv's pool:
 * argon2, V8's compiler and GC threads) gets a 64 MB arena of its own, and freed memory above the
 * dynamic mmap threshold stays in it: 26-40 MB of arenas per service after a short workload.
 * With 2 arenas and large blocks always mmap'd (and returned on free), the embedded platform
 * measured 556 MB instead of 621 MB (tools/bench/embedded-memory.mjs). A variable the caller
 * sets wins.
 */
export const SERVICE_MALLOC_ENV = Object.freeze({
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
});

/** The environment of a service process: the malloc settings under what the launcher passes. */
export const serviceProcessEnv = (env) => ({ ...SERVICE_MALLOC_ENV, ...env });
