#!/usr/bin/env node
// The load generator, in a process of its own (the bench starts it as
// `taskset -c <load core> node tools/bench/load-worker.mjs <spec.json>`).
//
// Protocol on stdout, one JSON object a line: {"event":"ready"} once set up; then it waits for
// "go" on stdin (so the bench can read the servers' CPU counters just before), runs, and ends
// with {"event":"result", ...}. Latencies are recorded here with sub-millisecond precision
// (autocannon's own histogram has 1 ms resolution, too coarse for sub-millisecond services).
//
// Spec (JSON):
//   target            http://127.0.0.1:<port>
//   request           { method, path, headers, body }     the request; {item} in path, body or a
//                                                         header value is replaced per request
//   items             { file, mode }                      one item a line; mode:
//                        'once'   every request takes the next item, none is ever reused;
//                                 if the items run out the run stops and says `exhausted`
//                        'cycle'  round-robin (items may repeat)
//                        'chain'  each connection takes an item, then uses the `chainField` of
//                                 each JSON response as its next item (a refresh token chain)
//                      json: true  each line is a JSON object whose fields fill {item.NAME}
//                                 placeholders: several fresh values per request (a code in the body
//                                 and a DPoP proof in a header)
//   chainField        e.g. "refresh_token"
//   collect           { field, file, stopAfter }          keep this field of every 2xx JSON response
//   connections, duration (s), timeout (s)
//   paced             { rate }                            open loop at a fixed rate instead of
//                                                         autocannon's closed loop: latency counts
//                                                         from the planned send time
//   expect            { status: [200], bodyIncludes }     anything else counts as `unexpected`
//   waitForGo         true: wait for "go" on stdin
import autocannon from 'autocannon';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const say = (object) => process.stdout.write(`${JSON.stringify(object)}\n`);

// ---- items ---------------------------------------------------------------------------------
const lines = spec.items ? readFileSync(spec.items.file, 'utf8').split('\n').filter(Boolean) : [];
const items = spec.items?.json ? lines.map((line) => JSON.parse(line)) : lines;
const mode = spec.items?.mode;
let nextItem = 0;
let exhausted = false;
let onExhausted = () => {};

function takeItem() {
  if (mode === 'cycle') return items[nextItem++ % items.length];
  if (nextItem < items.length) return items[nextItem++];
  if (!exhausted) {
    exhausted = true;
    onExhausted();
  }
  return undefined;
}

function withItem(item) {
  const base = spec.request;
  const fill = (text) => {
    if (typeof text !== 'string' || item === undefined) return text;
    if (typeof item === 'string') return text.replaceAll('{item}', item);
    return text.replace(/\{item\.([\w-]+)\}/g, (_, name) => {
      if (typeof item[name] !== 'string') throw new Error(`items: no string field ${name} in an item`);
      return item[name];
    });
  };
  const headers = {};
  for (const [name, value] of Object.entries(base.headers ?? {})) headers[name] = fill(value);
  return { method: base.method ?? 'GET', path: fill(base.path ?? '/'), headers, body: fill(base.body) };
}

// ---- what comes back -----------------------------------------------------------------------
const expectedStatus = new Set(spec.expect?.status ?? [200]);
const bodyIncludes = spec.expect?.bodyIncludes;
const collected = [];
const stats = { responses: 0, expected: 0, unexpected: 0, statusCounts: {}, sampleUnexpected: undefined };
let latencies = new Float64Array(1 << 16);
let tFirst = 0;
let tLast = 0;
let stopRequested = false;
let onStopRequested = () => {};

function recordLatency(ms) {
  if (stats.responses >= latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
  }
  latencies[stats.responses] = ms;
}

/** Returns the chain field of a good response, if any. */
function record(status, body, latencyMs) {
  recordLatency(latencyMs);
  stats.responses += 1;
  tLast = performance.now();
  stats.statusCounts[status] = (stats.statusCounts[status] ?? 0) + 1;
  const good = expectedStatus.has(status) && (!bodyIncludes || (body ?? '').includes(bodyIncludes));
  if (!good) {
    stats.unexpected += 1;
    stats.sampleUnexpected ??= `${status} ${String(body ?? '').slice(0, 300)}`;
    return undefined;
  }
  stats.expected += 1;
  if (!spec.collect && !spec.chainField) return undefined;
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (spec.collect && json[spec.collect.field]) {
    collected.push(json[spec.collect.field]);
    if (spec.collect.stopAfter && collected.length >= spec.collect.stopAfter && !stopRequested) {
      stopRequested = true;
      onStopRequested();
    }
  }
  return spec.chainField ? json[spec.chainField] : undefined;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

// ---- closed loop: autocannon ---------------------------------------------------------------
function runAutocannon() {
  const url = new URL(spec.target);
  const clients = [];
  const stopAll = () => setImmediate(() => clients.forEach((client) => client.destroy()));
  onExhausted = stopAll;
  onStopRequested = stopAll;
  // Latency is measured here, from the request's build (setupRequest, called for every request
  // autocannon sends) to its onResponse: autocannon's own (its 'response' event) is measured from
  // the oldest entry of its pipelined-request queue, and when a server closes a kept-alive
  // connection (nginx after keepalive_requests, 1000), the request already written to that
  // connection stays in the queue for good: every later latency then spans one request more per
  // close (a 10 s round through nginx read ~5 ms at p50 for a 0.6 ms request).
  let finish;
  const done = new Promise((resolve) => {
    finish = resolve;
  });

  const instance = autocannon(
    {
      url: url.origin,
      connections: spec.connections ?? 10,
      duration: spec.duration ?? 10,
      timeout: spec.timeout ?? 10,
      pipelining: 1,
      // Only for construction: every client gets its own request (and state) in setupClient.
      requests: [withItem(items[0])],
      setupClient: (client) => {
        clients.push(client);
        const lane = { item: undefined, awaiting: false, sentAt: 0 };
        client.setRequests([
          {
            ...withItem(items[0]),
            setupRequest: (request) => {
              lane.sentAt = performance.now();
              if (!spec.items) return request;
              if (mode !== 'chain' || lane.item === undefined || lane.awaiting) {
                // In a chain, no answer since the last build (a timeout, a reconnect) spends the item.
                lane.item = takeItem();
              }
              lane.awaiting = true;
              // Exhausted: one harmless repeat goes out while the clients are being destroyed.
              return { ...request, ...withItem(lane.item ?? items[items.length - 1]) };
            },
            onResponse: (status, body) => {
              lane.awaiting = false;
              const next = record(status, body, performance.now() - lane.sentAt);
              if (mode === 'chain') lane.item = next;
            },
          },
        ]);
      },
    },
    (error, result) => finish(error ? { errors: 1, timeouts: 0, error: String(error) } : result),
  );
  tFirst = performance.now();
  return done;
}

// ---- open loop: paced ----------------------------------------------------------------------
async function runPaced() {
  const url = new URL(spec.target);
  const laneCount = spec.connections ?? 64;
  const agent = new http.Agent({ keepAlive: true, maxSockets: laneCount });
  const lanes = Array.from({ length: laneCount }, () => ({ item: undefined, busy: false }));
  const idle = [...lanes];
  const due = []; // planned send times waiting for an idle lane
  const rate = spec.paced.rate;
  const durationMs = (spec.duration ?? 10) * 1000;
  let errors = 0;
  let timeouts = 0;
  let inFlight = 0;

  const send = (lane, plannedAt) => {
    if (mode === 'chain') {
      if (lane.item === undefined) lane.item = takeItem();
    } else if (spec.items) {
      lane.item = takeItem();
    }
    if (exhausted) return false;
    const { method, path, headers, body } = withItem(lane.item);
    const payload = body === undefined ? undefined : Buffer.from(body);
    lane.busy = true;
    inFlight += 1;
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers: payload ? { ...headers, 'content-length': payload.length } : headers,
        timeout: (spec.timeout ?? 10) * 1000,
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const next = record(response.statusCode, Buffer.concat(chunks).toString(), performance.now() - plannedAt);
          if (mode === 'chain') lane.item = next;
          release(lane);
        });
      },
    );
    request.on('timeout', () => {
      timeouts += 1;
      request.destroy(new Error('timeout'));
    });
    request.on('error', () => {
      errors += 1;
      if (mode === 'chain') lane.item = undefined;
      release(lane);
    });
    request.end(payload);
    return true;
  };
  let stopped = false;
  const release = (lane) => {
    if (!lane.busy) return;
    lane.busy = false;
    inFlight -= 1;
    const plannedAt = stopped ? undefined : due.shift();
    if (plannedAt !== undefined) send(lane, plannedAt);
    else idle.push(lane);
  };

  tFirst = performance.now();
  let planned = 0;
  while (!exhausted && !stopRequested) {
    const now = performance.now();
    if (now - tFirst >= durationMs) break;
    const target = Math.floor(((now - tFirst) / 1000) * rate);
    while (planned < target) {
      const plannedAt = tFirst + (planned * 1000) / rate;
      planned += 1;
      const lane = idle.pop();
      if (lane) send(lane, plannedAt);
      else due.push(plannedAt);
    }
    await sleep(1);
  }
  stopped = true;
  const deadline = performance.now() + (spec.timeout ?? 10) * 1000;
  while (inFlight > 0 && performance.now() < deadline) await sleep(5);
  agent.destroy();
  return { errors, timeouts, non2xx: 0, mismatches: 0, planned, unsent: due.length };
}

// ---- main ----------------------------------------------------------------------------------
async function main() {
  say({ event: 'ready' });
  if (spec.waitForGo) {
    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) if (line.trim() === 'go') break;
  }
  const raw = spec.paced ? await runPaced() : await runAutocannon();
  const elapsedSec = Math.max(1e-9, ((tLast || performance.now()) - tFirst) / 1000);
  const sorted = latencies.slice(0, stats.responses).filter((value) => Number.isFinite(value)).sort();
  if (spec.collect?.file) writeFileSync(spec.collect.file, collected.join('\n'));
  say({
    event: 'result',
    responses: stats.responses,
    expected: stats.expected,
    unexpected: stats.unexpected,
    statusCounts: stats.statusCounts,
    sampleUnexpected: stats.sampleUnexpected,
    errors: raw.errors ?? 0,
    timeouts: raw.timeouts ?? 0,
    elapsedSec,
    rps: stats.responses / elapsedSec,
    latencyMs: {
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
      mean: sorted.length ? sorted.reduce((sum, value) => sum + value, 0) / sorted.length : Number.NaN,
    },
    itemsUsed: Math.min(nextItem, items.length),
    itemsAvailable: items.length,
    exhausted,
    collected: collected.length,
    paced: spec.paced ? { rate: spec.paced.rate, planned: raw.planned, unsent: raw.unsent } : undefined,
  });
}

main().then(
  () => process.exit(0),
  (error) => {
    say({ event: 'error', message: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
  },
);
