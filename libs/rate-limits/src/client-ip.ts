import { trustedProxyListSchema, validateTrustedProxies } from '@platform/operations-config';
import { isIP } from 'node:net';
import { z } from 'zod';

export { validateTrustedProxies };

/**
 * TRUSTED_PROXIES, the one schema both services read it with: comma-separated IPs, CIDR ranges
 * or proxy-addr keywords (default `loopback`: the gateway of `npm start`), checked as the
 * gateway's GATEWAY_TRUST_PROXY list is (libs/operations-config). It becomes Fastify's
 * `trustProxy`, so request.ip is the client the gateway saw.
 */
export const trustedProxiesSchema = z.string().default('loopback').pipe(trustedProxyListSchema);

/**
 * The bucket an address is counted in: IPv4 as is (also when written IPv4-mapped, as a
 * dual-stack socket reports it), IPv6 by its /64, since one subscriber usually holds a whole
 * /64 and could otherwise rotate through 2^64 addresses.
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIP(address) !== 6) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
