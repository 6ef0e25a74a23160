import { BlockList, isIP } from 'node:net';

/**
 * The proxies whose X-Forwarded-For is believed: IP addresses, CIDR ranges, or `loopback`
 * (127.0.0.0/8 and ::1). Anything else throws, naming the entry.
 */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry === 'loopback') {
      list.addSubnet('127.0.0.0', 8, 'ipv4');
      list.addAddress('::1', 'ipv6');
      continue;
    }
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || extra !== undefined) throw new Error(`not an IP address or CIDR range: ${entry}`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`not a CIDR prefix length: ${entry}`);
    list.addSubnet(address, prefix, type);
  }
  return list;
}

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) is 1.2.3.4. */
function normalize(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface RequestAddressView {
  headers: Record<string, string | string[] | undefined>;
  socket: { remoteAddress?: string };
}

/**
 * The client's address. X-Forwarded-For is read from the right, one hop per trusted proxy:
 * an entry is believed only when the hop that wrote it (the socket peer, then each trusted
 * proxy in turn) is trusted. A client talking to us directly cannot choose its address by
 * sending the header, and one behind the gateway cannot by prepending entries to it.
 */
export function clientIp(request: RequestAddressView, trusted: BlockList): string {
  let address = normalize(request.socket.remoteAddress ?? '');
  const header = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter((hop) => hop !== '');
  while (hops.length > 0 && isTrusted(trusted, address)) {
    const next = normalize(hops.pop() as string);
    // A trusted proxy that forwards something other than an address is misconfigured:
    // keep the last address that is certain.
    if (isIP(next) === 0) break;
    address = next;
  }
  return address || 'unknown';
}

/**
 * The bucket of an address: IPv4 as is, IPv6 by its /64, since one subscriber usually holds
 * a whole /64 and could otherwise rotate through 2^64 addresses.
 */
export function addressBucket(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
