/**
 * CPU cost of building an OAuth error, with and without a stack trace (issue 12). Prints figures;
 * asserts nothing. Run: `npx jiti libs/oauth-errors/scripts/measure-construction.ts`.
 *
 * The errors are built 40 frames deep, about where a NestJS handler on Fastify throws them.
 */
import { InvalidGrantError, InvalidTokenError, ServerError } from '../src/oauth-error';

/** The same error as it was built before: with a stack capture. */
class InvalidGrantWithStack extends InvalidGrantError {
  static override readonly capturesStack = true;
}

const N = 200_000;
// Node's default (jiti raises it): what the services run with.
Error.stackTraceLimit = Number(process.env['STACK_TRACE_LIMIT'] ?? 10);

function deep<T>(depth: number, make: () => T): T {
  return depth === 0 ? make() : deep(depth - 1, make);
}

function cpuMicrosPerCall(make: () => unknown): number {
  for (let i = 0; i < 20_000; i++) deep(40, make); // warm-up
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) deep(40, make);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
}

const baseline = cpuMicrosPerCall(() => ({ error: 'invalid_grant' }));
const rows: [string, number][] = [
  ['invalid_grant, with stack (before)', cpuMicrosPerCall(() => new InvalidGrantWithStack('The authorization code is invalid'))],
  ['invalid_grant (now)', cpuMicrosPerCall(() => new InvalidGrantError('The authorization code is invalid'))],
  ['invalid_token (now)', cpuMicrosPerCall(() => new InvalidTokenError('The access token is invalid'))],
  ['server_error (keeps its stack)', cpuMicrosPerCall(() => new ServerError('unexpected'))],
  ['plain Error, stack read (what logging one costs)', cpuMicrosPerCall(() => new Error('x').stack)],
];
console.log(`Error.stackTraceLimit ${Error.stackTraceLimit}, ${N} each, 40 frames deep; a plain object costs ${baseline.toFixed(2)} µs`);
for (const [name, micros] of rows) console.log(`${name.padEnd(50)} ${(micros - baseline).toFixed(2)} µs CPU`);
