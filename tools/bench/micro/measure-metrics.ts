/**
 * CPU cost of recording one HTTP request in the service metrics: ServiceMetrics.observeRequest
 * (the histogram observed with a label object) against the series bound once with prom-client's
 * labels(). A loop keeps everything in the CPU's caches: inside a server under load the same calls
 * cost several times more. Prints figures; asserts nothing.
 * Run: `npx jiti tools/bench/micro/measure-metrics.ts`.
 */
import { Histogram, Registry } from 'prom-client';
import { ServiceMetrics } from '../../../libs/metrics/src/metrics';

const N = 500_000;
const ROUTES = ['/api/oauth/token', '/api/oauth/introspect', '/api/v1/courses', '/api/v1/students/:studentId'];
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function cpuMicrosPerCall(observe: (i: number) => void): number {
  for (let i = 0; i < 50_000; i++) observe(i);
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) observe(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
}

const metrics = new ServiceMetrics();
const perRequest = cpuMicrosPerCall((i) => metrics.observeRequest('POST', ROUTES[i & 3] as string, i % 7 === 0 ? 400 : 200, 0.0012));

const registry = new Registry();
const labelNames = ['method', 'route', 'status'] as const;
const duration = new Histogram({ name: 'd', help: 'd', labelNames, buckets: BUCKETS, registers: [registry] });
const bound = new Map<string, { observe(value: number): void }>();
for (const route of ROUTES) {
  for (const status of ['200', '400']) {
    const labels = { method: 'POST', route, status };
    bound.set(`${route} ${status}`, duration.labels(labels));
  }
}
const boundOnce = cpuMicrosPerCall((i) => {
  const series = bound.get(`${ROUTES[i & 3]} ${i % 7 === 0 ? 400 : 200}`);
  series?.observe(0.0012);
});

console.log(`${N} requests over ${ROUTES.length} routes, prom-client 15`);
console.log(`label object per request (ServiceMetrics) ${perRequest.toFixed(2)} µs CPU`);
console.log(`series bound once with labels()           ${boundOnce.toFixed(2)} µs CPU`);
