// The client address behind the compose gateway, tested on the running stack with the
// production rate limits (RATE_LIMIT_REGISTRATION_PER_IP unset: 30 registrations per address
// per hour). Two client containers on the stack's `edge` network, each with its own address:
//   A registers until refused: exactly the production budget, then 429; A then claims other
//     addresses in X-Forwarded-For (an outsider's, a chain, B's): still 429 every time;
//   B, claiming to be A, still has its whole budget: 201.
// The gateway replaces X-Forwarded-For with the address it saw, and the services believe it
// only from the backend network (TRUSTED_PROXIES), so each container is counted as itself.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** Production default of the auth server (apps/auth-server/src/config/limits-config.ts). */
export const REGISTRATIONS_PER_ADDRESS = 30;

/**
 * @param {{ docker: string, root: string, network: string, image: string, origin: string, log: (message: string) => void }} options
 */
export function testClientAddresses({ docker: dockerCli, root, network, image, origin, log }) {
  /** @param {string[]} args */
  const docker = (...args) => {
    const result = spawnSync(dockerCli, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`docker ${args[0]} failed: ${result.stderr || result.stdout || result.error}`);
    return result.stdout.trim();
  };
  // Two clients that live side by side, so that each keeps its own address (a container started
  // after another one was removed may well get the same address again).
  const clients = ['A', 'B'].map(() =>
    docker('run', '-d', '--rm', '--network', network, '--entrypoint', 'sleep', '-v', `${join(root, 'tools/containers/client-probe.mjs')}:/probe/client-probe.mjs:ro`, image, '600'),
  );
  const [clientA, clientB] = clients;
  /** @param {string} container @param {string[]} args */
  const probe = (container, ...args) => JSON.parse(docker('exec', container, 'node', '/probe/client-probe.mjs', origin, ...args).split('\n').pop() ?? '{}');
  try {
    run(probe, /** @type {string} */ (clientA), /** @type {string} */ (clientB), log);
  } finally {
    spawnSync(dockerCli, ['rm', '-f', ...clients], { encoding: 'utf8' });
  }
}

/**
 * @param {(container: string, ...args: string[]) => any} probe
 * @param {string} clientA
 * @param {string} clientB
 * @param {(message: string) => void} log
 */
function run(probe, clientA, clientB, log) {
  const a = probe(clientA, String(REGISTRATIONS_PER_ADDRESS + 5), '198.51.100.7', '198.51.100.7, 203.0.113.9');
  log(`client A ${a.addresses.join(',')}: ${a.registered} registrations, then ${a.refusal?.status} ${a.refusal?.error ?? ''}`);
  assert.equal(a.registered, REGISTRATIONS_PER_ADDRESS, 'client A gets exactly the per-address budget');
  assert.deepEqual(a.refusal, { status: 429, error: 'too_many_requests' });
  const aAddress = a.addresses[0];

  const b = probe(clientB, '1', aAddress);
  log(`client B ${b.addresses.join(',')}: ${b.registered} registration; then claiming to be A (${aAddress}): ${b.claims[0]?.status}`);
  assert.notEqual(b.addresses[0], aAddress, 'the two clients have different addresses');
  assert.equal(b.registered, 1, 'client B has its own budget');
  assert.equal(b.claims[0]?.status, 201, "claiming A's address changes nothing for B");

  // A once more, now claiming B's address (known only now).
  const aAgain = probe(clientA, '1', b.addresses[0]);
  assert.equal(aAgain.registered, 0, 'client A is still refused');
  const claims = [...a.claims, ...aAgain.claims];
  log(`client A with a forged X-Forwarded-For: ${claims.map((/** @type {{ claim: string, status: number }} */ c) => `"${c.claim}" -> ${c.status}`).join('; ')}`);
  for (const claim of claims) assert.equal(claim.status, 429, `a forged X-Forwarded-For (${claim.claim}) buys client A nothing`);
}
