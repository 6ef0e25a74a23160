/**
 * A Redis command with a deadline: the reply, or a rejection once `deadlineMs` has passed.
 * node-redis drops a command's own timeout once the command is written, so a Redis that takes
 * the bytes and never answers (frozen, partitioned) would hold the caller forever: the wait is
 * bounded here. At the deadline the signal given to `send` is aborted, so a command still
 * waiting to be written leaves node-redis's queue (pass it as `{ abortSignal }` to sendCommand).
 *
 * One timer and one AbortController per command, not AbortSignal.timeout: that one (node-redis's
 * per-command `timeout`, 5 s by default) fires and builds a DOMException even after the reply
 * came, on every command.
 */
export function withDeadline<T>(send: (abortSignal: AbortSignal) => Promise<T>, deadlineMs: number): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`Redis did not answer within ${deadlineMs} ms`));
    }, deadlineMs);
    send(controller.signal).then(
      (reply) => {
        clearTimeout(timer);
        resolve(reply);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
