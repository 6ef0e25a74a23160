#!/usr/bin/env node
// `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in tools/conformance/package.json) against the running platform:
//   - the server scenarios that the MCP revisions 2025-11-25 and 2026-07-28 require (each run at
//     its own wire: initialize handshake vs stateless requests), against {origin}/mcp;
//   - the authorization-server scenarios against the origin (the issuer): its metadata, and the
//     authorization code grant, whose sign-in and consent the project's form walker performs.
// Every check the suite reports as FAILURE or WARNING must be excused in baseline.json (with the
// reason: a feature this server deliberately lacks); anything else, or an excuse that no longer
// matches what happens, exits 1. Prints the results table and writes it to results.md.
//
//   npm run conformance                      builds, starts the platform on free ports, runs all
//   npm run conformance -- --no-build        uses what is in dist/
//   npm run conformance -- --origin=http://127.0.0.1:3000   against a platform already running
//                                            (seeded demo account; registers one client)
//
// The suite needs Node >= 22: it runs on the Node 24 of tools/node24/ensure.sh, installed with
// that Node's npm into tools/conformance/node_modules (git-ignored), never into the root package.
// The platform itself runs on the Node that runs this script. Raw results: tmp/conformance/.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../platform/fresh-databases.mjs';
import { startPlatform } from '../load/platform.mjs';
import { announcedCount, judge, notScored, readResults, renderTable } from './verdict.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const OUT = join(root, 'tmp/conformance');
const VERSIONS = ['2025-11-25', '2026-07-28'];
const argv = process.argv.slice(2);
const givenOrigin = argv.find((arg) => arg.startsWith('--origin='))?.slice('--origin='.length).replace(/\/$/, '');

const started = Date.now();
const node24 = ensureNode24();
ensureSuite(node24);
const suiteVersion = JSON.parse(readFileSync(join(here, 'node_modules/@modelcontextprotocol/conformance/package.json'), 'utf8')).version;
console.log(`MCP conformance suite ${suiteVersion} on Node ${execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim()}`);

let platform;
let exitCode = 1;
try {
  if (givenOrigin) {
    platform = { baseUrl: givenOrigin, stop: async () => undefined, output: () => '' };
  } else {
    console.log('Starting the platform on free ports...');
    platform = await startPlatform(root, { build: !argv.includes('--no-build') });
  }
  const origin = platform.baseUrl;
  console.log(`Platform at ${origin}`);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });

  const runs = [];
  for (const version of VERSIONS) {
    runs.push(await runServerSuite(origin, version));
  }
  runs.push(await runAuthorizationSuite(origin));

  const baseline = JSON.parse(readFileSync(join(here, 'baseline.json'), 'utf8'));
  const verdict = judge(runs, baseline);
  const table = renderTable(verdict, suiteVersion);
  writeFileSync(join(here, 'results.md'), table);
  console.log(`\n${table}`);
  for (const line of verdict.problems) console.error(`✗ ${line}`);
  console.log(`\nConformance: ${verdict.problems.length === 0 ? 'as the baseline says' : `${verdict.problems.length} problem(s)`} ` +
    `(${Math.round((Date.now() - started) / 1000)} s; raw results in tmp/conformance/)`);
  exitCode = verdict.problems.length === 0 ? 0 : 1;
} catch (error) {
  console.error(`conformance: ${error instanceof Error ? error.message : error}`);
  if (platform?.output) console.error(platform.output().slice(-3000));
} finally {
  await platform?.stop();
}
process.exit(exitCode);

function ensureNode24() {
  return execFileSync('bash', [join(root, 'tools/node24/ensure.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** Installs the pinned suite (package-lock.json) with Node 24's npm when it is missing or another version. */
function ensureSuite(node) {
  const wanted = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies['@modelcontextprotocol/conformance'];
  const installed = join(here, 'node_modules/@modelcontextprotocol/conformance/package.json');
  if (existsSync(installed) && JSON.parse(readFileSync(installed, 'utf8')).version === wanted) return;
  console.log(`Installing @modelcontextprotocol/conformance@${wanted} into tools/conformance/node_modules...`);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: here,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` },
  });
}

function suiteCommand(args) {
  return [join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'), ...args];
}

/** Runs the suite's CLI on Node 24; resolves with its output. `onLine` sees stdout line by line. */
function runSuite(args, { onLine, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(node24, suiteCommand(args), { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let pending = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the suite did not finish within ${timeoutMs / 1000} s: conformance ${args.join(' ')}\n${output.slice(-3000)}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) onLine?.(line, child);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      writeFileSync(join(OUT, `${args[0]}-${args.includes('--requirements') ? args[args.indexOf('--requirements') + 1] : 'as'}.log`), output);
      resolve({ code, output });
    });
  });
}

async function runServerSuite(origin, version) {
  console.log(`Server scenarios required by ${version} against ${origin}/mcp...`);
  const dir = join(OUT, `server-${version}`);
  const { output } = await runSuite(['server', '--url', `${origin}/mcp`, '--requirements', version, '--output-dir', dir]);
  return { kind: 'server', version, scenarios: readResults(dir, 'server-'), expected: announcedCount(output), notScored: notScored(output) };
}

/**
 * The suite's authorization scenarios need a client registered for its loopback callback; the
 * code grant prints the authorization URL and waits on that callback: the form walker signs in
 * and approves (consent.mjs). The token is asked for the MCP endpoint (RFC 8707 `resource`).
 */
async function runAuthorizationSuite(origin) {
  console.log(`Authorization-server scenarios against ${origin}...`);
  const metadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json();
  const port = await freePort();
  const registration = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP conformance suite',
      redirect_uris: [`http://127.0.0.1:${port}/callback`],
      token_endpoint_auth_method: 'none',
    }),
  });
  const client = await registration.json();
  if (registration.status !== 201) throw new Error(`registering the suite's client failed: ${registration.status} ${JSON.stringify(client)}`);

  const dir = join(OUT, 'authorization');
  let authorizationUrl;
  let consent;
  let expectUrl = false;
  const { output } = await runSuite(
    ['authorization', '--url', metadata.issuer, '--client-id', client.client_id, '--resource', `${origin}/mcp`, '--port', String(port), '--output-dir', dir],
    {
      onLine(line, child) {
        if (line.startsWith('Access the following URL')) expectUrl = true;
        else if (expectUrl && line.trim()) {
          authorizationUrl = line.trim();
          expectUrl = false;
        } else if (authorizationUrl && !consent && line.includes('Callback server started')) {
          // A failed consent brings no callback: stop the suite instead of letting it wait 5 minutes.
          consent = approve(authorizationUrl, origin).then((said) => {
            if (said.startsWith('consent failed')) child.kill('SIGTERM');
            return said;
          });
        }
      },
    },
  );
  const approval = consent ? await consent : 'the suite printed no authorization URL';
  const scenarios = readResults(dir, 'authorization-server-');
  const grant = scenarios.find((scenario) => scenario.scenario === 'authorization-code-grant');
  if (grant) grant.consent = approval;
  if (scenarios.length === 0) throw new Error(`the authorization scenarios wrote no results:\n${output.slice(-3000)}`);
  return { kind: 'authorization', version: 'all', scenarios, expected: announcedCount(output), notScored: new Map(), consent: approval };
}

/** consent.mjs on Node 24 (it imports the TypeScript form walker); resolves with what it said. */
function approve(url, origin) {
  return new Promise((resolve) => {
    const child = spawn(node24, ['--experimental-transform-types', '--no-warnings', join(here, 'consent.mjs'), url, origin], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    child.stdout.on('data', (chunk) => (said += chunk));
    child.stderr.on('data', (chunk) => (said += chunk));
    child.once('exit', (code) => resolve(code === 0 ? said.trim() : `consent failed (exit ${code}): ${said.trim().slice(0, 500)}`));
  });
}
