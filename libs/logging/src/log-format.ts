import pino, { type DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/**
 * Logs for people and for machines. A person running `npm start` in a shell reads the lines in
 * a terminal: one readable line per event. Everywhere else (containers, CI, a file, a log
 * shipper) the lines are JSON, one object per line, as they always were.
 */
export type LogFormat = 'json' | 'pretty';

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

/**
 * LOG_FORMAT=json or pretty decides; unset (or `auto`): pretty when stdout is a terminal,
 * JSON otherwise. Throws, naming the variable, on any other value.
 */
export function logFormat(env: NodeJS.ProcessEnv, stdout: { isTTY?: boolean }): LogFormat {
  const value = env['LOG_FORMAT'] || 'auto';
  if (!(LOG_FORMATS as readonly string[]).includes(value)) {
    throw new Error(`LOG_FORMAT: expected one of ${LOG_FORMATS.join(', ')}, got ${value}`);
  }
  if (value !== 'auto') return value as LogFormat;
  return stdout.isTTY === true ? 'pretty' : 'json';
}

interface LogLine {
  service?: string;
  context?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  [key: string]: unknown;
}

/** `[service] Context: message`, and for a request line `GET /path 200 12 ms`. */
export function humanMessage(line: LogLine, messageKey: string): string {
  const parts = [`[${line.service ?? 'platform'}]`];
  parts.push(line.context ? `${line.context}: ${String(line[messageKey] ?? '')}` : String(line[messageKey] ?? ''));
  if (line.req?.method && line.req.url) {
    parts.push(`${line.req.method} ${line.req.url}`);
    if (line.res?.statusCode !== undefined) parts.push(String(line.res.statusCode));
    if (typeof line.responseTime === 'number') parts.push(`${Math.round(line.responseTime)} ms`);
  }
  return parts.join(' ');
}

/**
 * pino-pretty in this process, writing synchronously: a line is on the terminal before the
 * call that logged it returns (no worker thread), so what a service logs while starting is
 * printed before it listens, and the launcher's banner comes after it.
 */
export function humanLogStream(destination: number | NodeJS.WritableStream = 1): DestinationStream {
  return pretty({
    sync: true,
    destination,
    colorize: typeof destination === 'number' ? undefined : false,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // Shown in the message instead (humanMessage), or noise for a person (headers, ids).
    ignore: 'pid,hostname,service,context,req,res,responseTime,reqId',
    messageFormat: (line, messageKey) => humanMessage(line as LogLine, messageKey),
  });
}

/** Where a service's logs go when the caller names no destination: see logFormat. */
export function defaultLogDestination(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): DestinationStream | undefined {
  return logFormat(env, stdout) === 'pretty' ? humanLogStream() : undefined;
}

/** Request lines held before one write(2): ~20 completion lines. */
export const REQUEST_LOG_BUFFER_BYTES = 4096;
/** The longest a request line waits in that buffer on a quiet service. */
export const REQUEST_LOG_FLUSH_MS = 250;

/**
 * Where the request completion lines go when the caller names no destination. JSON lines are
 * written in batches (sonic-boom: `minLength`, flushed at least every REQUEST_LOG_FLUSH_MS): a
 * busy service writes many short lines per write(2) instead of one system call per request, a
 * quiet one shows its
 * lines within a quarter of a second. The batch is written synchronously, as pino writes
 * everything else: sonic-boom's asynchronous mode hands each batch to libuv's thread pool and
 * costs more CPU per request than the synchronous write, and it
 * buffers without bound while stdout's reader is stalled. What is pending is written when the
 * process exits (flushedAtExit); a SIGKILL loses at most the buffer. Readable lines (a terminal)
 * are written one at a time.
 */
export function defaultRequestLogDestination(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): DestinationStream {
  return logFormat(env, stdout) === 'pretty' ? humanLogStream() : batchedLogDestination(1);
}

/** JSON lines to `dest` (a file descriptor or path), written in batches: see defaultRequestLogDestination. */
export function batchedLogDestination(dest: number | string): DestinationStream {
  return flushedAtExit(pino.destination({ dest, sync: true, minLength: REQUEST_LOG_BUFFER_BYTES, periodicFlush: REQUEST_LOG_FLUSH_MS }));
}

type BatchedDestination = ReturnType<typeof pino.destination>;

/** Open batched destinations; one 'exit' listener writes what each holds. */
const pendingAtExit = new Set<BatchedDestination>();

function flushPendingAtExit(): void {
  for (const destination of pendingAtExit) {
    try {
      destination.flushSync();
    } catch {
      // Nothing left to report it to: stdout itself refused (closed pipe, full disk).
    }
  }
}

/**
 * pino registers its own exit flush only for asynchronous destinations; a synchronous one
 * with a buffer needs it too (process.exit after SIGTERM, a crash that reaches 'exit').
 */
function flushedAtExit(destination: BatchedDestination): BatchedDestination {
  if (pendingAtExit.size === 0) process.on('exit', flushPendingAtExit);
  pendingAtExit.add(destination);
  destination.once('close', () => {
    pendingAtExit.delete(destination);
    if (pendingAtExit.size === 0) process.removeListener('exit', flushPendingAtExit);
  });
  return destination;
}
