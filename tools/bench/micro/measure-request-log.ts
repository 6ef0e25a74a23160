/**
 * CPU cost of a service's request log per request: requestLogging for a successful
 * request (short line) and a refused one (headers, censored), pino-http as the services used it
 * before, and one bare pino line. The write itself is left out (the destination drops the line). Prints figures;
 * asserts nothing. Run: `npx jiti tools/bench/micro/measure-request-log.ts`.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import pino from 'pino';
import { pinoHttp, type Options } from 'pino-http';
import { baseLoggerOptions, requestLogging } from '../../../libs/logging/src/http-logging';

const N = 50_000;
const sink = { write: (_chunk: string) => undefined };

function request(status: number): [IncomingMessage, ServerResponse] {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = '/api/oauth/token';
  req.headers = {
    host: '127.0.0.1:3001', 'content-type': 'application/x-www-form-urlencoded', 'content-length': '180', accept: 'application/json',
    'user-agent': 'autocannon', 'x-request-id': 'b1946ac9-2e3c-4b8a-9c1f-0d2e6a7f8b9c', 'x-forwarded-for': '198.51.100.7', authorization: 'Basic Y2xpZW50OnNlY3JldA==',
  };
  (req as unknown as { id: string }).id = 'b1946ac9-2e3c-4b8a-9c1f-0d2e6a7f8b9c';
  const res = new ServerResponse(req);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  return [req, res];
}

function cpuMicros(one: (status: number) => void, status: number): number {
  for (let i = 0; i < 5_000; i++) one(status);
  const base = process.cpuUsage();
  for (let i = 0; i < N; i++) request(status);
  const baseUsed = process.cpuUsage(base);
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) one(status);
  const used = process.cpuUsage(start);
  return (used.user + used.system - baseUsed.user - baseUsed.system) / N;
}

const middleware = requestLogging({ service: 'auth-server', level: 'info', destination: sink });
const viaRequestLogging = (status: number) => {
  const [req, res] = request(status);
  middleware(req, res, () => undefined);
  res.emit('finish');
};
// pino-http with the options the services passed it before (quiet request logger, header copy and pino redaction).
const options = baseLoggerOptions({ service: 'auth-server', level: 'info' });
const pinoHttpBefore = pinoHttp(
  {
    ...options,
    quietReqLogger: true,
    serializers: {
      req: (req: { id?: unknown; method?: string; url?: string; headers?: object; remoteAddress?: string }) => ({ ...req, headers: { ...req.headers } }),
      res: (res: { statusCode?: number; headers?: object }) => ({ statusCode: res.statusCode, headers: { ...res.headers } }),
    },
  } as Options,
  sink,
);
const viaPinoHttp = (status: number) => {
  const [req, res] = request(status);
  pinoHttpBefore(req, res);
  res.emit('finish');
};
const bare = pino(options, sink);
const bareLine = (status: number) => {
  const [req] = request(status);
  bare.info({ reqId: (req as unknown as { id: string }).id, req: { method: 'POST', url: '/api/oauth/token' }, res: { statusCode: status }, responseTime: 1 }, 'request completed');
};

for (const round of [1, 2]) {
  console.log(`round ${round}, µs of CPU per request (the write itself excluded)`);
  console.log(`  pino-http as before: 200 ${cpuMicros(viaPinoHttp, 200).toFixed(1)}, 401 ${cpuMicros(viaPinoHttp, 401).toFixed(1)}`);
  console.log(`  requestLogging:      200 ${cpuMicros(viaRequestLogging, 200).toFixed(1)}, 401 ${cpuMicros(viaRequestLogging, 401).toFixed(1)}`);
  console.log(`  one bare pino line:  ${cpuMicros(bareLine, 200).toFixed(1)}`);
}
