import { Readable, Transform, type TransformCallback } from 'node:stream';

/** The error a body over the limit fails with; upstream-error.ts turns it into a 413. */
export class BodyTooLargeError extends Error {
  readonly statusCode = 413;
  readonly code = 'GATEWAY_BODY_TOO_LARGE';
  constructor(limit: number) {
    super(`The request body exceeds ${limit} bytes`);
  }
}

/** Whether a declared Content-Length is already over the limit (then nothing is proxied). */
export function declaresTooLarge(contentLength: string | undefined, limit: number): boolean {
  if (contentLength === undefined) return false;
  const length = Number(contentLength);
  return Number.isFinite(length) && length > limit;
}

/**
 * Passes a streamed body (chunked, no Content-Length) through while counting it, and fails
 * the stream once it passes the limit, so the proxied request is aborted and the client gets
 * a 413 rather than whatever the service's early refusal does to the gateway's upload.
 */
export function limitStream(body: Readable, limit: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > limit) callback(new BodyTooLargeError(limit));
      else callback(null, chunk);
    },
  });
  body.on('error', (error) => counter.destroy(error));
  return body.pipe(counter);
}

/** How much of a refused body is read and thrown away before answering, at most. */
export const DISCARD_LIMITS = { bytes: 64 * 1024 * 1024, ms: 10_000 };

/**
 * Reads and throws away the rest of a request body, so that the refusal which follows reaches
 * the client: answering and closing while it is still sending makes the kernel reset the
 * connection, and the client sees EPIPE/ECONNRESET instead of the 413 (a "lingering close",
 * as nginx does it). Bounded in bytes and time; past either, the answer goes out anyway.
 */
export function discardBody(body: Readable, limits = DISCARD_LIMITS): Promise<void> {
  if (body.readableEnded || body.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      body.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limits.bytes) done();
    };
    const timer = setTimeout(done, limits.ms);
    body.on('data', count);
    body.once('end', done);
    body.once('close', done);
    body.once('error', done);
    body.resume();
  });
}
