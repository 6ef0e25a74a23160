import { compile } from '@fastify/proxy-addr';
import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Checks a TRUSTED_PROXIES list with the library Fastify resolves X-Forwarded-For with
 * (`trustProxy`): IP addresses, CIDR ranges, or `loopback` / `linklocal` / `uniquelocal`.
 * Throws, naming the entry, on anything else.
 */
export function validateTrustedProxies(entries: readonly string[]): void {
  for (const entry of entries) {
    try {
      compile(entry);
    } catch {
      throw new Error(`not an IP address, CIDR range or proxy-addr keyword: ${entry}`);
    }
  }
}

/**
 * TRUSTED_PROXIES, the one schema both services read it with: comma-separated IPs, CIDR ranges
 * or proxy-addr keywords (default `loopback`: the gateway of `npm start`), checked as above.
 * It becomes Fastify's `trustProxy`, so request.ip is the client the gateway saw.
 */
export const trustedProxiesSchema = z
  .string()
  .default('loopback')
  .transform((value) => value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))
  .superRefine((entries, context) => {
    try {
      validateTrustedProxies(entries);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

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
