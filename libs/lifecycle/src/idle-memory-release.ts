import type { FastifyInstance } from 'fastify';
import { isOperationalPath } from '@platform/route-table';

/** A service quiet this long (no request but probes) gives its memory back: docs/operations.md, "Memory". */
export const IDLE_RELEASE_AFTER_MS = 10_000;

export interface IdleMemoryReleaseOptions {
  /** Quiet time before the release; 0 turns it off. */
  idleMs?: number;
  /** The collection to run; by default V8's last-resort GC when Node runs with --expose-gc, else none (off). */
  collect?: (() => void) | undefined;
  now?: () => number;
  /** Runs `look` every `everyMs` until the returned stop is called; by default an unref'd setInterval. */
  schedule?: (look: () => void, everyMs: number) => () => void;
  /** Told what each release did (the services log it at debug). */
  report?: (released: MemoryRelease) => void;
}

export interface MemoryRelease {
  rssBeforeBytes: number;
  rssAfterBytes: number;
  pauseMs: number;
}

/** "idle: memory released, RSS <before> → <after> MB in a <pause> ms pause". */
export function describeRelease({ rssBeforeBytes, rssAfterBytes, pauseMs }: MemoryRelease): string {
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return `idle: memory released, RSS ${mb(rssBeforeBytes)} → ${mb(rssAfterBytes)} MB in a ${Math.round(pauseMs)} ms pause`;
}

/** The options of the exposed gc() for V8's last-resort collection (Heap::CollectAllAvailableGarbage). */
const LAST_RESORT_GC = Object.freeze({ type: 'major', flavor: 'last-resort' } as const);

type ExposedGc = (options: typeof LAST_RESORT_GC) => void;

/**
 * V8's last-resort collection: full GCs until nothing more is freed, the young generation shrunk
 * to its initial size and the pooled pages returned to the OS. `undefined` without --expose-gc.
 */
export function lastResortCollection(): (() => void) | undefined {
  const gc = (globalThis as { gc?: ExposedGc }).gc;
  return typeof gc === 'function' ? () => gc(LAST_RESORT_GC) : undefined;
}

/**
 * Gives back the memory a burst of requests left behind. V8 keeps its young generation at the
 * size the burst grew it to, and the pages its collections freed, until its next collection; a
 * service that serves nothing allocates nothing, so that collection never comes. Once the service
 * has served requests and then none for `idleMs` (probes do not count), it runs one last-resort
 * collection: one pause of the process per quiet period, never paid by a busy service.
 */
export function releaseMemoryWhenIdle(fastify: FastifyInstance, options: IdleMemoryReleaseOptions = {}): void {
  const idleMs = options.idleMs ?? IDLE_RELEASE_AFTER_MS;
  const collect = 'collect' in options ? options.collect : lastResortCollection();
  if (!collect || idleMs <= 0) return;
  const now = options.now ?? Date.now;
  let served = 0;
  let servedAtLastLook = 0;
  let quietSince = now();
  let releaseDue = false;

  // A callback hook, not an async one: it runs on every request.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!isOperationalPath(request.url)) served += 1;
    done();
  });

  const look = () => {
    if (served !== servedAtLastLook) {
      servedAtLastLook = served;
      quietSince = now();
      releaseDue = true;
      return;
    }
    if (!releaseDue || now() - quietSince < idleMs) return;
    releaseDue = false;
    const rssBeforeBytes = process.memoryUsage.rss();
    const started = performance.now();
    collect();
    options.report?.({ rssBeforeBytes, rssAfterBytes: process.memoryUsage.rss(), pauseMs: performance.now() - started });
  };
  // Looked at twice per period: the release comes between idleMs and 1.5 × idleMs of quiet.
  const stop = (options.schedule ?? everyUnref)(look, Math.max(1, Math.floor(idleMs / 2)));
  fastify.addHook('onClose', (_instance, done) => {
    stop();
    done();
  });
}

function everyUnref(look: () => void, everyMs: number): () => void {
  const timer = setInterval(look, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
