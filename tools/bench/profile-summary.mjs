#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (node --cpu-prof): the functions with the most self time, the same
// time grouped by where the code lives (app bundle, a node_modules package, node internals,
// garbage collector, idle), and optionally the inclusive time of chosen functions per request.
//   node tools/bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--window FROM_US-TO_US]...
//        [--match 'label=REGEX'] [--requests N]
// --window keeps the samples taken in that CLOCK_MONOTONIC interval (µs; run.mjs passes the timed
// runs' windows, so start-up and preparation are left out). --match sums the time of every sample
// whose stack has a frame matching REGEX (tested against "functionName place"), once per sample.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function where(url) {
  if (!url) return '(native/V8)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const dist = url.match(/dist\/apps\/([^/]+)\//);
  if (dist) return `app bundle (${dist[1]})`;
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

const SPECIAL = new Set(['(idle)', '(garbage collector)', '(program)', '(root)']);

/**
 * @param {string} file
 * @param {{ top?: number, windows?: [number, number][], match?: Record<string, string>, requests?: number }} options
 */
export function summarizeProfile(file, { top = 25, windows, match = {}, requests } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (node) => {
    const name = node.callFrame.functionName || '(anonymous)';
    return { name, place: SPECIAL.has(name) ? name : where(node.callFrame.url) };
  };
  const patterns = Object.entries(match).map(([name, source]) => [name, new RegExp(source)]);
  const matchedMicros = Object.fromEntries(patterns.map(([name]) => [name, 0]));
  const matchesOf = new Map();
  const stackMatches = (id) => {
    if (matchesOf.has(id)) return matchesOf.get(id);
    const node = byId.get(id);
    const { name, place } = label(node);
    const own = patterns.filter(([, regex]) => regex.test(`${name} ${place}`)).map(([n]) => n);
    const up = parent.has(id) ? stackMatches(parent.get(id)) : [];
    const all = [...new Set([...own, ...up])];
    matchesOf.set(id, all);
    return all;
  };

  const selfMicros = new Map();
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const delta = profile.timeDeltas[i] ?? 0;
    time += delta;
    if (windows?.length && !windows.some(([from, to]) => time >= from && time <= to)) continue;
    const id = profile.samples[i];
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + delta);
    for (const name of stackMatches(id)) matchedMicros[name] += delta;
  }
  const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);
  const functions = new Map();
  const places = new Map();
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    const { name, place } = label(node);
    const key = `${name} ${place}:${node.callFrame.lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
    places.set(place, (places.get(place) ?? 0) + micros);
  }
  const busy = total - (places.get('(idle)') ?? 0);
  const rows = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, micros]) => ({ key, ms: micros / 1000, percentOfBusy: key.startsWith('(idle)') ? Number.NaN : (100 * micros) / busy }));
  return {
    file,
    totalMs: total / 1000,
    busyMs: busy / 1000,
    requests,
    busyMicrosPerRequest: requests ? busy / requests : undefined,
    functions: rows(functions),
    places: rows(places),
    matched: Object.entries(matchedMicros).map(([name, micros]) => ({
      name,
      pattern: match[name],
      ms: micros / 1000,
      percentOfBusy: (100 * micros) / busy,
      microsPerRequest: requests ? micros / requests : undefined,
    })),
  };
}

const pct = (value) => (Number.isFinite(value) ? value.toFixed(1) : '-');

export function formatSummary(summary) {
  const lines = [
    `${summary.file}: ${summary.totalMs.toFixed(0)} ms sampled, ${summary.busyMs.toFixed(0)} ms not idle` +
      (summary.requests ? `, ${summary.requests} requests: ${summary.busyMicrosPerRequest.toFixed(0)} µs of CPU per request` : ''),
  ];
  if (summary.matched.length) {
    lines.push('', 'inclusive time of:', '| what | pattern | ms | % of busy | µs/request |', '|---|---|---|---|---|');
    for (const row of summary.matched) {
      lines.push(`| ${row.name} | \`${row.pattern}\` | ${row.ms.toFixed(0)} | ${pct(row.percentOfBusy)} | ${row.microsPerRequest?.toFixed(1) ?? '-'} |`);
    }
  }
  lines.push('', 'self time by place:', '| place | ms | % of busy |', '|---|---|---|');
  for (const row of summary.places) lines.push(`| ${row.key} | ${row.ms.toFixed(0)} | ${pct(row.percentOfBusy)} |`);
  lines.push('', 'top functions by self time:', '| function place:line | ms | % of busy |', '|---|---|---|');
  for (const row of summary.functions) lines.push(`| ${row.key} | ${row.ms.toFixed(0)} | ${pct(row.percentOfBusy)} |`);
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const files = [];
  const options = { top: 25, windows: [], match: {} };
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === '--top') options.top = Number(args[++i]);
    else if (args[i] === '--requests') options.requests = Number(args[++i]);
    else if (args[i] === '--window') options.windows.push(args[++i].split('-').map(Number));
    else if (args[i] === '--match') {
      const [name, ...rest] = args[++i].split('=');
      options.match[name] = rest.join('=');
    } else files.push(args[i]);
  }
  for (const file of files) console.log(`${formatSummary(summarizeProfile(file, options))}\n`);
}
