import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { BalancedPool, type Dispatcher, Pool } from 'undici';

/** Every address a host name has now (A and AAAA records, /etc/hosts), as dns.lookup sees them. */
export type ResolveAddresses = (hostname: string) => Promise<string[]>;

export const resolveWithLookup: ResolveAddresses = async (hostname) => (await lookup(hostname, { all: true })).map((entry) => entry.address);

export interface UpstreamOptions {
  /** How the service's host name becomes addresses (tests: a hosts table). */
  resolve?: ResolveAddresses;
  /** How often the addresses are asked again (GATEWAY_DNS_REFRESH_MS). */
  refreshMs: number;
}

/**
 * Connections kept to each replica. Enough for a replica's own concurrency; beyond it requests
 * queue here. Pipelining stays off (1): a slow answer would hold up the ones queued behind it.
 */
const POOL_OPTIONS: Pool.Options = { connections: 128, pipelining: 1, keepAliveTimeout: 4_000 };

/** Which replica a dispatch went to, keyed by the dispatch's options object (one per attempt). */
const chosenUpstream = new WeakMap<object, string>();

/** A replica's pool that says which replica it is when the balanced pool hands it a request. */
class ReplicaPool extends Pool {
  constructor(
    readonly upstream: string,
    options: Pool.Options,
  ) {
    super(upstream, options);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    chosenUpstream.set(options, this.upstream);
    return super.dispatch(options, handler);
  }
}

/**
 * One service's replicas, balanced per request. The configured origin's host name is resolved
 * to every address it has (a swarm `tasks.<service>` name, a Kubernetes headless Service) and
 * asked again every `refreshMs`: a replica that appears gets requests from the next one on (not
 * only once old connections close), and one that goes is removed, its pool closed once its
 * requests in flight have their answers. undici's BalancedPool picks a replica per request
 * (weighted round robin; a replica whose connections fail loses weight until it connects
 * again). An IP literal is one replica; an https origin is kept by name (its certificate names
 * the host, not an address). Until the name has resolved at all, the name itself is the one
 * upstream, as a plain pool would have it.
 */
export class ServiceUpstreams {
  readonly pool: BalancedPool;
  private readonly origin: URL;
  private readonly resolve: ResolveAddresses;
  private readonly fixed: boolean;
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;
  private resolvedOnce = false;

  constructor(origin: string, private readonly options: UpstreamOptions) {
    this.origin = new URL(origin);
    this.resolve = options.resolve ?? resolveWithLookup;
    this.fixed = this.origin.protocol === 'https:' || isIP(hostOf(this.origin)) !== 0;
    this.pool = new BalancedPool([this.origin.origin], {
      ...POOL_OPTIONS,
      // undici passes the upstream's origin (a string, whatever its types say).
      factory: (upstream, options) => new ReplicaPool(new URL(String(upstream)).origin, options as Pool.Options),
    });
  }

  /** Resolves the name once (the first requests already go to every replica), then keeps refreshing. */
  async start(): Promise<void> {
    if (this.fixed) return;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs);
    this.timer.unref();
  }

  /** The replicas' origins now. */
  upstreams(): string[] {
    return this.pool.upstreams;
  }

  /** Asks the name again (at most one lookup at a time); a failed lookup keeps what was known. */
  refresh(): Promise<void> {
    if (this.fixed) return Promise.resolve();
    this.refreshing ??= this.lookUp().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** A specific replica's pool (a retry that must go elsewhere), if it is still one. */
  replica(upstream: string): Dispatcher | undefined {
    return this.pool.getUpstream(upstream);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.pool.close();
  }

  private async lookUp(): Promise<void> {
    let addresses: string[];
    try {
      addresses = [...new Set(await this.resolve(hostOf(this.origin)))];
    } catch {
      return;
    }
    if (addresses.length === 0) return;
    const wanted = new Set(addresses.map((address) => originAt(this.origin, address)));
    for (const upstream of wanted) this.pool.addUpstream(upstream);
    for (const upstream of this.pool.upstreams) if (!wanted.has(upstream)) this.pool.removeUpstream(upstream);
    this.resolvedOnce = true;
  }

  /** Whether the name has resolved to addresses at least once. */
  resolved(): boolean {
    return this.fixed || this.resolvedOnce;
  }
}

/** The replica a dispatch went to (set when the balanced pool handed the request to a replica's pool). */
export function upstreamOf(options: Dispatcher.DispatchOptions): string | undefined {
  return chosenUpstream.get(options);
}

/** The URL's host without the brackets of an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The origin with the address in place of the name, port and scheme kept. */
function originAt(origin: URL, address: string): string {
  const url = new URL(origin.origin);
  url.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return url.origin;
}
