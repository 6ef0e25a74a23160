import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { ClientRequest, RequestOptions } from 'node:http';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import { isSpecialUseAddress } from './special-use-address';

/** dns.lookup's shape with `all: true`; tests pass a resolver that maps names without real DNS. */
export type Resolver = (hostname: string, callback: (error: Error | null, addresses: LookupAddress[]) => void) => void;

/** Where a request whose destination a caller chose may connect. */
export interface ConnectionPolicy {
  /** TESTS ONLY: loopback and private addresses too. Each service refuses it in production. */
  allowSpecialUseAddresses: boolean;
  /** Extra PEM roots, trusted in addition to the system's (tests only). */
  extraCaCertificates?: string;
  resolver?: Resolver;
}

const systemResolver: Resolver = (hostname, callback) =>
  dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => callback(error, addresses ?? []));

/** A name that resolves to a special-use address (or to none): the connection is never opened. */
export class SpecialUseAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly address?: string,
  ) {
    super(`${hostname} resolves to a special-use address${address ? ` (${address})` : ''}`);
  }
}

/**
 * The connect-time check. Node calls the agent's `lookup` for every connection it opens and
 * connects to exactly the address it returns, so refusing special-use addresses HERE (not in
 * a separate, earlier DNS query) leaves no gap for DNS rebinding: the address checked is the
 * address connected to. Every address of the name must be acceptable.
 */
export function guardedLookup(policy: ConnectionPolicy): LookupFunction {
  const resolve = policy.resolver ?? systemResolver;
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => isSpecialUseAddress(entry.address));
      if (addresses.length === 0 || (refused && !policy.allowSpecialUseAddresses)) {
        return callback(new SpecialUseAddressError(hostname, refused?.address), '', 0);
      }
      const family = options.family === 6 ? 6 : options.family === 4 ? 4 : undefined;
      const usable = family ? addresses.filter((entry) => entry.family === family) : addresses;
      if (usable.length === 0) return callback(Object.assign(new Error(`no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      return callback(null, usable[0].address, usable[0].family);
    });
  };
}

/** An IP literal host is connected to without any lookup: it is checked on its own. */
export function isSpecialUseLiteral(url: URL, policy: ConnectionPolicy): boolean {
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(literal) !== 0 && isSpecialUseAddress(literal) && !policy.allowSpecialUseAddresses;
}

/**
 * The options of a guarded request: the lookup above, a fresh connection per request (the
 * lookup runs for each one; a pooled connection would skip it), the extra roots if any.
 */
export function guardedRequestOptions(policy: ConnectionPolicy): Pick<RequestOptions, 'lookup' | 'agent'> & { ca?: string[] } {
  return {
    lookup: guardedLookup(policy),
    agent: false,
    ...(policy.extraCaCertificates ? { ca: [...rootCertificates, policy.extraCaCertificates] } : {}),
  };
}

/** Defense in depth: whatever socket was opened, its peer must be acceptable; `refuse` is told the peer otherwise. */
export function checkPeerOnConnect(request: ClientRequest, policy: ConnectionPolicy, refuse: (peer: string | undefined) => void): void {
  request.on('socket', (socket: Socket) => {
    socket.once('connect', () => {
      const peer = socket.remoteAddress;
      if (!policy.allowSpecialUseAddresses && (!peer || isSpecialUseAddress(peer))) refuse(peer);
    });
  });
}
