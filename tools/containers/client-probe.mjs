#!/usr/bin/env node
// Runs INSIDE a client container on the compose stack's `edge` network (see client-address.mjs):
// registers OAuth clients (RFC 7591) at the gateway from this container's own address and
// prints what happened as one JSON line. No dependencies: node's fetch only.
//
//   node client-probe.mjs <origin> <max registrations> [X-Forwarded-For to claim, ...]
//
// It registers until the first refusal (or max), then, once per claim given, tries again while
// claiming that X-Forwarded-For. Output: {"addresses": [...], "registered": n,
// "refusal": {status, error}, "claims": [{claim, status}]}.
import { networkInterfaces } from 'node:os';

const [origin, maxText, ...claims] = process.argv.slice(2);
const max = Number(maxText);
if (!origin || !Number.isInteger(max) || max < 1) {
  console.error('usage: client-probe.mjs <origin> <max registrations> [claimed X-Forwarded-For...]');
  process.exit(2);
}

/** @param {Record<string, string>} headers */
async function register(headers = {}) {
  const response = await fetch(`${origin}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ client_name: 'compose client-address probe', redirect_uris: ['http://127.0.0.1:8765/callback'], token_endpoint_auth_method: 'none' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.json().catch(() => ({}));
  return { status: response.status, error: /** @type {{ error?: string }} */ (body).error };
}

const addresses = Object.values(networkInterfaces())
  .flat()
  .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
  .map((entry) => entry?.address);
let registered = 0;
let refusal;
while (registered < max) {
  const answer = await register();
  if (answer.status !== 201) {
    refusal = answer;
    break;
  }
  registered++;
}
const results = [];
for (const claim of claims) results.push({ claim, status: (await register({ 'x-forwarded-for': claim })).status });
console.log(JSON.stringify({ addresses, registered, refusal, claims: results }));
