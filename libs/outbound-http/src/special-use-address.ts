import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address must never be connected to by a request a caller chose the destination of
 * (metadata documents, webhooks). For metadata documents (draft-ietf-oauth-client-id-metadata-document,
 * "Server-Side Request Forgery": the authorization server "SHOULD" refuse special-use
 * addresses; RFC 6890 lists them). ipaddr.js classifies every RFC 6890 / IANA special-purpose
 * block (loopback, private, link-local, CGNAT, multicast, unspecified, broadcast,
 * documentation, benchmarking, 6to4, Teredo, NAT64, ORCHID, unique local, discard...); only
 * plain `unicast` passes. IPv4-mapped and IPv4-compatible IPv6 addresses are judged as the
 * IPv4 address they carry, and an IPv6 address must also be global unicast (2000::/3).
 * Anything that does not parse counts as special-use.
 */
export function isSpecialUseAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return true;
  const parsed = ipaddr.process(bare);
  if (parsed.range() !== 'unicast') return true;
  if (parsed.kind() === 'ipv6') return !(parsed as ipaddr.IPv6).match(ipaddr.IPv6.parse('2000::'), 3);
  return false;
}
