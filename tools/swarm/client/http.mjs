// HTTP for the client containers of the swarm stage (node: built-ins only: they run on the
// migrate image's Node with no node_modules). Each request goes to an address picked at random
// among those the origin's name resolves to now: a client behind a load balancer that balances
// per request, and follows the tasks as swarm's DNS adds and removes them. One connection per
// request, or (keepAlive) connections kept alive per address and used again.
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import { isIP } from 'node:net';

/**
 * @typedef {{ status: number, headers: import('node:http').IncomingHttpHeaders, body: Buffer, text: string,
 *   started: number, ended: number, address: string, error?: string }} Answer
 *   status 0: no answer (the error says why); started/ended: Date.now() around the exchange.
 */

/**
 * Every IPv4 address a name resolves to now (an address resolves to itself).
 * @param {string} host
 * @returns {Promise<string[]>}
 */
export async function addressesOf(host) {
  if (isIP(host)) return [host];
  const found = await lookup(host, { all: true, family: 4 });
  return found.map((entry) => entry.address);
}

/**
 * One request on a connection of its own.
 * @param {string} origin e.g. http://gateway:3000 or http://10.0.1.7:3002
 * @param {string} method
 * @param {string} path with its query
 * @param {{ headers?: Record<string, string>, body?: string | Buffer, timeoutMs?: number, keepAlive?: boolean }} [options]
 * @returns {Promise<Answer>}
 */
export async function send(origin, method, path, options = {}) {
  const url = new URL(origin);
  const started = Date.now();
  let address = '';
  try {
    const addresses = await addressesOf(url.hostname);
    if (addresses.length === 0) throw new Error(`${url.hostname} resolves to nothing`);
    address = /** @type {string} */ (addresses[Math.floor(Math.random() * addresses.length)]);
  } catch (error) {
    return { status: 0, headers: {}, body: Buffer.alloc(0), text: '', started, ended: Date.now(), address, error: `lookup: ${describe(error)}` };
  }
  const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
  return new Promise((resolve) => {
    let settled = false;
    /** @param {Answer} answer */
    const settle = (answer) => {
      if (!settled) resolve(answer);
      settled = true;
    };
    /** @param {unknown} error @returns {Answer} */
    const failed = (error) => ({ status: 0, headers: {}, body: Buffer.alloc(0), text: '', started, ended: Date.now(), address, error: describe(error) });
    const request = http.request(
      {
        host: address,
        port: url.port || 80,
        method,
        path,
        agent: options.keepAlive ? keptAlive : false,
        headers: {
          host: url.host,
          ...(body ? { 'content-length': String(body.length) } : {}),
          ...options.headers,
        },
        timeout: options.timeoutMs ?? 30_000,
      },
      (response) => {
        /** @type {Buffer[]} */
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const bytes = Buffer.concat(chunks);
          settle({ status: response.statusCode ?? 0, headers: response.headers, body: bytes, text: bytes.toString('utf8'), started, ended: Date.now(), address });
        });
        response.on('error', (error) => settle(failed(error)));
        response.on('aborted', () => settle(failed(new Error('answer cut short'))));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => settle(failed(error)));
    request.end(body);
  });
}

/** Connections kept alive, per address (the agent's pools are per host and port). */
const keptAlive = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** @param {unknown} error */
function describe(error) {
  if (!(error instanceof Error)) return String(error);
  const code = /** @type {NodeJS.ErrnoException} */ (error).code;
  return code ? `${code} ${error.message}` : error.message;
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
