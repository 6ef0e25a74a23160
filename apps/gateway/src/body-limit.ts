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
