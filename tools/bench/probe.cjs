// Preloaded into every process the bench starts (`node -r tools/bench/probe.cjs ...`), so the
// bench can count what a service did during a case without touching app code:
//   httpIn     HTTP requests the process served   (diagnostics_channel http.server.request.start)
//   fetchOut   requests it sent with fetch/undici  (diagnostics_channel undici:request:create), by path
//   pgQueries  queries it sent to PostgreSQL       (a counter around pg.Client.prototype.query),
//              also by the first 60 characters of their SQL
// The counters cost an increment and a Map lookup each. The parent asks over IPC: {type:'bench-probe', id, gc?}.
'use strict';
const diagnostics = require('node:diagnostics_channel');
const path = require('node:path');

const counts = { httpIn: 0, fetchOut: 0, fetchOutByPath: {}, pgQueries: 0, pgQueriesByText: {} };

diagnostics.subscribe('http.server.request.start', () => {
  counts.httpIn += 1;
});
diagnostics.subscribe('undici:request:create', ({ request }) => {
  counts.fetchOut += 1;
  const key = String(request.path).split('?', 1)[0];
  counts.fetchOutByPath[key] = (counts.fetchOutByPath[key] ?? 0) + 1;
});

// The apps are bundled with node_modules external, so their `pg` is the workspace's `pg`.
try {
  const pg = require(require.resolve('pg', { paths: [process.cwd(), path.join(__dirname, '../..')] }));
  const query = pg.Client.prototype.query;
  // A statement's key, once per text: collapsing the whitespace of a grant's 1.5 KB CTE on every
  // query cost ~10 µs of the measured service's CPU per request. Services send a few dozen texts.
  const keys = new Map();
  const keyOf = (text) => {
    let key = keys.get(text);
    if (key === undefined) {
      key = String(text ?? '?').replace(/\s+/g, ' ').slice(0, 60);
      if (keys.size < 10_000) keys.set(text, key);
    }
    return key;
  };
  pg.Client.prototype.query = function countedQuery(...args) {
    counts.pgQueries += 1;
    const key = keyOf(typeof args[0] === 'string' ? args[0] : args[0]?.text);
    counts.pgQueriesByText[key] = (counts.pgQueriesByText[key] ?? 0) + 1;
    return query.apply(this, args);
  };
} catch {
  // not a PostgreSQL client process (gateway, oidc-provider)
}

let gc;
function collectGarbage() {
  try {
    if (!gc) {
      require('node:v8').setFlagsFromString('--expose-gc');
      gc = require('node:vm').runInNewContext('gc');
    }
    gc();
  } catch {
    // best effort
  }
}

/** Resident bytes of V8's young generation (new_space): Node 24 lets it grow to 128 MB under load. */
function youngGenerationBytes() {
  return require('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size;
}

if (process.send) {
  process.on('message', (message) => {
    if (!message || message.type !== 'bench-probe') return;
    if (message.gc) collectGarbage();
    process.send({
      type: 'bench-probe',
      id: message.id,
      counts: { ...counts, fetchOutByPath: { ...counts.fetchOutByPath }, pgQueriesByText: { ...counts.pgQueriesByText } },
      memory: { ...process.memoryUsage(), youngGeneration: youngGenerationBytes() },
    });
  });
}
