#!/usr/bin/env node
// Memory of the embedded mode: starts `npm start` exactly as a person would (no DATABASE_URL,
// no REDIS_URL: PGlite in the launcher, in-process event bus) on free ports and a temporary data
// directory, drives a short realistic workload through the origin, then prints the RSS of every
// process of the platform and the total, against the 600 MB target of issue 12.
//
//   node tools/bench/embedded-memory.mjs [--no-build] [--flows N] [--detail] [--json FILE]
//
//   --no-build   start with what is in dist/ (npm start builds first otherwise)
//   --flows N    authorization-code flows through the real forms (default 10); every flow is
//                followed by API calls, an introspection and a refresh
//   --detail     also prints where each process's memory is (/proc/<pid>/smaps by kind)
//   --json FILE  writes the figures as JSON
//
// Everything it starts (the launcher, and with it the services and the databases) is stopped
// at the end, also on failure or Ctrl-C, and the temporary data directory is removed.
import { createWriteStream, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { launchPlatform } from '../platform/launch.mjs';
import { FormAgent, exchangeCode, pkcePair, postForm, prepareCodes, registerClient } from './lib/oauth.mjs';
import { rssBytes, smapsBreakdown } from './lib/system.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const TARGET_MB = 600;
/** The services' quiet time before their idle release (IDLE_RELEASE_AFTER_MS, libs/lifecycle/src/idle-memory-release.ts). */
const IDLE_RELEASE_AFTER_MS = 10_000;
const START_TIMEOUT_MS = 10 * 60_000; // a cold `nx build` on a busy 2-core machine
const STOP_TIMEOUT_MS = 30_000;
const SCOPE = 'courses:read offline_access';

function option(name, fallback) {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : process.argv[index + 1];
}
const flows = Number(option('--flows', '10'));
const detail = process.argv.includes('--detail');
const jsonFile = option('--json');
const mb = (bytes) => bytes / 2 ** 20;

// ---- /proc --------------------------------------------------------------------------------

function processTable() {
  const table = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      table.push({ pid: Number(entry), ppid, cmdline });
    } catch {
      // exited while we looked
    }
  }
  return table;
}

/** The process and all its descendants. */
function processTree(rootPid) {
  const table = processTable();
  const tree = [];
  const walk = (pid) => {
    const self = table.find((row) => row.pid === pid);
    if (self) tree.push(self);
    for (const child of table.filter((row) => row.ppid === pid)) walk(child.pid);
  };
  walk(rootPid);
  return tree;
}

function describe({ pid, cmdline }, launcherPid) {
  if (pid === launcherPid) return 'launcher + embedded PostgreSQL (PGlite)';
  const app = cmdline.join(' ').match(/dist\/apps\/([\w-]+)\/main\.js/);
  return app ? app[1] : cmdline.slice(0, 3).join(' ').slice(0, 60);
}


// ---- the platform -------------------------------------------------------------------------

/** `npm start` with the embedded defaults (what it does on a machine with nothing installed), on free ports. */
function startPlatform(dataDir, log) {
  const unset = Object.fromEntries(
    ['DATABASE_URL', 'REDIS_URL', 'AUTH_DATABASE_URL', 'RESOURCE_DATABASE_URL', 'AUTH_SERVER_URL', 'RESOURCE_SERVER_URL'].map((name) => [name, undefined]),
  );
  return launchPlatform(ROOT, {
    build: !process.argv.includes('--no-build'),
    timeoutMs: START_TIMEOUT_MS,
    env: { ...unset, PLATFORM_DATA_DIR: dataDir },
    onOutput: (chunk) => log.write(chunk),
  });
}

/** SIGTERM to the launcher (it stops the services and the databases), SIGKILL to what is left. */
async function stopPlatform(launcher) {
  if (!launcher || launcher.exitCode !== null || launcher.signalCode !== null) return;
  const tree = processTree(launcher.pid);
  const exited = new Promise((resolve) => launcher.once('exit', resolve));
  launcher.kill('SIGTERM');
  const timedOut = await Promise.race([exited.then(() => false), sleep(STOP_TIMEOUT_MS).then(() => true)]);
  for (const { pid } of tree) {
    try {
      process.kill(pid, 0);
      if (timedOut || pid !== launcher.pid) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
}

// ---- the workload -------------------------------------------------------------------------

async function getJson(url, init = {}) {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function workload(origin, dataDir) {
  const counts = { discovery: 0, registrations: 0, codeFlows: 0, apiCalls: 0, introspections: 0, refreshes: 0 };
  const metadata = await getJson(`${origin}/.well-known/oauth-authorization-server`);
  await getJson(`${origin}/.well-known/openid-configuration`);
  await getJson(metadata.jwks_uri);
  await getJson(`${origin}/.well-known/oauth-protected-resource`).catch(() => undefined);
  counts.discovery += 4;

  const client = await registerClient(origin, { client_name: 'embedded-memory', scope: SCOPE });
  counts.registrations += 1;
  const introspectionSecret = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).introspectionClientSecret;

  const agent = new FormAgent(origin);
  const { verifier, challenge } = pkcePair();
  const codes = await prepareCodes({ agent, clientId: client.client_id, challenge, count: flows, concurrency: 2, scope: SCOPE });
  for (const code of codes) {
    const tokens = await exchangeCode(origin, { clientId: client.client_id, code, verifier });
    counts.codeFlows += 1;
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const list = await getJson(`${origin}/api/v1/courses?limit=20`, { headers: bearer });
    const first = (list.data ?? list.items ?? list)[0];
    await getJson(`${origin}/api/v1/courses?limit=5`, { headers: bearer });
    if (first?.id) await getJson(`${origin}/api/v1/courses/${encodeURIComponent(first.id)}`, { headers: bearer });
    counts.apiCalls += first?.id ? 3 : 2;
    const introspection = await postForm(
      `${origin}/api/oauth/introspect`,
      { token: tokens.access_token, token_type_hint: 'access_token', client_id: 'resource-server', client_secret: introspectionSecret },
      'introspection',
    );
    if (!introspection.active) throw new Error('introspection: a fresh access token is not active');
    counts.introspections += 1;
    if (tokens.refresh_token) {
      await postForm(`${origin}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }, 'refresh');
      counts.refreshes += 1;
    }
  }
  return counts;
}

// ---- report -------------------------------------------------------------------------------

/**
 * Proportional set size: shared pages (the node binary's ~40-47 MB of code and read-only data
 * in every process) divided among the processes sharing them. RSS counts them in each process.
 */
function pssBytes(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+) kB/m)?.[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

function measure(launcherPid) {
  return processTree(launcherPid).map((row) => ({
    pid: row.pid,
    name: describe(row, launcherPid),
    rssBytes: rssBytes(row.pid),
    pssBytes: pssBytes(row.pid),
    ...(detail ? { smaps: smapsBreakdown(row.pid) } : {}),
  }));
}

function report(processes, counts) {
  const total = processes.reduce((sum, p) => sum + p.rssBytes, 0);
  const totalPss = processes.reduce((sum, p) => sum + p.pssBytes, 0);
  const lines = ['', `Workload through the origin: ${Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ')}`, ''];
  lines.push(`${'process'.padEnd(44)} ${'pid'.padStart(7)} ${'RSS MB'.padStart(8)} ${'PSS MB'.padStart(8)}`);
  for (const p of processes) {
    lines.push(`${p.name.padEnd(44)} ${String(p.pid).padStart(7)} ${mb(p.rssBytes).toFixed(1).padStart(8)} ${mb(p.pssBytes).toFixed(1).padStart(8)}`);
    for (const [kind, bytes] of Object.entries(p.smaps ?? {}).sort((a, b) => b[1] - a[1])) {
      if (bytes >= 2 ** 20) lines.push(`    ${kind.padEnd(48)} ${mb(bytes).toFixed(1).padStart(8)}`);
    }
  }
  const verdict = mb(total) < TARGET_MB ? 'PASS' : 'MISS';
  lines.push(
    `${'total'.padEnd(44)} ${''.padStart(7)} ${mb(total).toFixed(1).padStart(8)} ${mb(totalPss).toFixed(1).padStart(8)}`,
    '',
    `${verdict}: embedded platform RSS ${mb(total).toFixed(0)} MB (target < ${TARGET_MB} MB; the sum of RSS counts shared pages once per process, PSS ${mb(totalPss).toFixed(0)} MB does not)`,
  );
  console.log(lines.join('\n'));
  return { totalBytes: total, totalPssBytes: totalPss, verdict };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'embedded-memory-'));
  const logFile = join(dataDir, '..', `${dataDir.split('/').pop()}.log`);
  const log = createWriteStream(logFile);
  let launcher;
  const cleanUp = async () => {
    await stopPlatform(launcher);
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
  }
  try {
    console.log(`npm start (embedded) starting; its output goes to ${logFile}`);
    const platform = await startPlatform(dataDir, log);
    launcher = platform.launcher;
    const afterStart = measure(launcher.pid);
    console.log(`Up. RSS just after start: ${afterStart.map((p) => `${p.name} ${mb(p.rssBytes).toFixed(0)} MB`).join(', ')}`);
    const counts = await workload(platform.origin, dataDir);
    await sleep(2_000); // let the last responses' buffers be released
    const processes = measure(launcher.pid);
    const { totalBytes, totalPssBytes, verdict } = report(processes, counts);
    // Beside the target, not instead of it: what the platform holds once the services have been
    // quiet long enough for their idle release (libs/lifecycle, releaseMemoryWhenIdle).
    await sleep(IDLE_RELEASE_AFTER_MS * 1.5 + 1_000);
    const atRest = measure(launcher.pid);
    const atRestTotal = atRest.reduce((sum, p) => sum + p.rssBytes, 0);
    console.log(`At rest (${(IDLE_RELEASE_AFTER_MS * 1.5) / 1000 + 1} s later, after the services' idle release): ${atRest.map((p) => `${p.name} ${mb(p.rssBytes).toFixed(0)} MB`).join(', ')}; total ${mb(atRestTotal).toFixed(0)} MB`);
    if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify({ targetMb: TARGET_MB, verdict, totalBytes, totalPssBytes, counts, afterStart, processes, atRest, atRestTotalBytes: atRestTotal }, null, 2)}\n`);
    log.end();
    rmSync(logFile, { force: true });
  } finally {
    await cleanUp();
    log.end();
  }
}

main().catch((error) => {
  console.error(`embedded-memory failed: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
});
