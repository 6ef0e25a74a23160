#!/usr/bin/env node
// Compares two bench results (tools/bench/results/*.json): medians side by side, per case.
//   node tools/bench/compare.mjs tools/bench/results/<before>.json [tools/bench/results/latest.json]
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, markdownTable } from './lib/stats.mjs';

const [beforeFile, afterFile = join(dirname(fileURLToPath(import.meta.url)), 'results/latest.json')] = process.argv.slice(2);
if (!beforeFile) {
  console.error('usage: node tools/bench/compare.mjs <before.json> [after.json]');
  process.exit(2);
}
const before = JSON.parse(readFileSync(beforeFile, 'utf8'));
const after = JSON.parse(readFileSync(afterFile, 'utf8'));
const change = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && a !== 0 ? `${b >= a ? '+' : ''}${fmt((100 * (b - a)) / a, 1)}%` : 'n/a');
const pair = (a, b, digits = 0) => `${fmt(a, digits)} → ${fmt(b, digits)} (${change(a, b)})`;

const rows = [];
for (const row of after.cases) {
  const old = before.cases.find((c) => c.id === row.id);
  if (!old) continue;
  rows.push([
    row.id,
    pair(old.rps.median, row.rps.median),
    pair(old.p50.median, row.p50.median, 2),
    pair(old.p99.median, row.p99.median, 2),
    pair(old.cpuServiceUs.median, row.cpuServiceUs.median),
  ]);
}
console.log(`${beforeFile} (${before.startedAt}) → ${afterFile} (${after.startedAt})\n`);
console.log(markdownTable(['case', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req'], rows));
console.log('');
console.log(
  markdownTable(
    ['target', 'before', 'after'],
    after.targets.map((t) => [t.target.replace(/ \(.*\)$/, ''), before.targets.find((o) => o.id === t.id)?.measured ?? 'n/a', `${t.measured} ${t.result}`]),
  ),
);
