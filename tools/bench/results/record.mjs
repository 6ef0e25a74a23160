#!/usr/bin/env node
// Appends one line to history.jsonl for a full bench run: its start, the commit it measured, the setup,
// and every case's and target's figures (medians with min–max), the shape of the lines already there.
//   node tools/bench/results/record.mjs [tools/bench/results/<run>.json]   (default: latest.json)
// Smoke runs and a run already recorded (same startedAt) are refused. --history FILE writes elsewhere.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const historyAt = args.indexOf('--history');
const history = historyAt >= 0 ? args.splice(historyAt, 2)[1] : join(here, 'history.jsonl');
const runFile = args[0] ?? join(here, 'latest.json');
const run = JSON.parse(readFileSync(runFile, 'utf8'));

if (run.options?.smoke) throw new Error(`${runFile} is a smoke run: only full runs go into the history`);
const recorded = existsSync(history) ? readFileSync(history, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
if (recorded.some((line) => line.startedAt === run.startedAt)) throw new Error(`${run.startedAt} is already in ${history}`);

function git(...gitArgs) {
  try {
    return execFileSync('git', gitArgs, { cwd: here, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** { median, min, max } without the sample count, and nothing when the case did not measure it. */
const figure = (s) => (s && Number.isFinite(s.median) ? { median: s.median, min: s.min, max: s.max } : undefined);
const optionText = Object.entries(run.options ?? {})
  .filter(([key, value]) => ['rounds', 'duration', 'repeat', 'connections', 'only'].includes(key) && value !== undefined)
  .map(([key, value]) => `--${key} ${Array.isArray(value) ? value.join(',') : value}`)
  .join(' ');
const { machine = {} } = run;

const line = {
  startedAt: run.startedAt,
  // The code the run measured, as it noted when it started; a run from before it noted it: the tree
  // as it is now (record right after such a run, on the tree it measured).
  commit: run.commit ?? git('rev-parse', 'HEAD') ?? null,
  uncommittedChanges: (run.commit ? run.uncommittedChanges : Boolean(git('status', '--porcelain', '--untracked-files=no'))) || undefined,
  kind: 'bench',
  setup: `${machine.nproc} cores "${machine.cpuModel}", ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.kernel}; ${run.database}; ${run.cache}`,
  node: machine.node?.replace(/^v/, ''),
  options: optionText,
  noise: run.noise,
  cases: Object.fromEntries(
    run.cases.map((row) => [
      row.id,
      { connections: row.connections, rps: figure(row.rps), p50Ms: figure(row.p50), p99Ms: figure(row.p99), cpuUsPerRequest: figure(row.cpuServiceUs) },
    ]),
  ),
  targets: run.targets.map(({ id, target, measured, result }) => ({ id, target, measured, result })),
};
appendFileSync(history, `${JSON.stringify(line)}\n`);
console.log(`${run.startedAt} appended to ${history}`);
