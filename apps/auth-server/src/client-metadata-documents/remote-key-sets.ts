import { Inject, Injectable, Optional } from '@nestjs/common';
import type { JSONWebKeySet } from 'jose';
import { LRUCache } from 'lru-cache';
import { checkPublicKeySet } from '../clients/public-key-set';
import { CIMD_CONFIG, type CimdConfig } from '../config/cimd-config';
import { freshnessSeconds } from './cache-lifetime';
import { CIMD_RESOLVER_OVERRIDES, type ResolverOverrides } from './resolver-overrides';
import { fetchMetadataDocument } from './document-fetcher';
import { MetadataDocumentError } from './errors';
import { HostFetchBudget } from './host-fetch-budget';

/** Distinct jwks_uri kept at once; the least recently used goes first. */
const MAX_CACHED_KEY_SETS = 1_000;
/**
 * A JWK Set is bigger than a metadata document (several RSA keys, x5c chains): read up to this
 * much, with the documents' timeout and address rules.
 */
export const MAX_KEY_SET_BYTES = 16 * 1024;
/**
 * A jwks_uri is fetched again for an unknown kid at most this often (jose's createRemoteJWKSet
 * uses the same 30 s): a client that rotated its key is heard at once, and a caller sending
 * assertions with random kids cannot make this server fetch the set more than twice a minute.
 */
export const KEY_REFETCH_COOLDOWN_MS = 30_000;

/**
 * The public keys a private_key_jwt client publishes at its jwks_uri (RFC 7591 §2), fetched with
 * the metadata documents' SSRF-safe fetcher and limits (never a special-use address, no redirect,
 * bounded size and time, the per-host fetch budget), cached for the documents' lifetime (HTTP
 * freshness clamped to [CIMD_CACHE_MIN_SECONDS, CIMD_CACHE_MAX_SECONDS]), fetched again early only
 * for an assertion whose kid the set lacks, once per cool-down. jose's createRemoteJWKSet is not
 * used: it would fetch with the platform's fetch, past every one of these rules.
 */
@Injectable()
export class RemoteKeySets {
  private readonly cache: LRUCache<string, JSONWebKeySet>;
  /** When each jwks_uri was last fetched (or tried), for the cool-down. */
  private readonly lastFetchAt: LRUCache<string, number>;
  private readonly now: () => number;

  constructor(
    @Inject(CIMD_CONFIG) private readonly config: CimdConfig,
    private readonly budget: HostFetchBudget,
    @Optional() @Inject(CIMD_RESOLVER_OVERRIDES) private readonly overrides: ResolverOverrides = {},
  ) {
    this.now = overrides.now ?? Date.now;
    this.lastFetchAt = new LRUCache<string, number>({ max: MAX_CACHED_KEY_SETS });
    this.cache = new LRUCache<string, JSONWebKeySet>({
      max: MAX_CACHED_KEY_SETS,
      ttl: config.cacheMaxSeconds * 1000,
      ...(overrides.now ? { perf: { now: overrides.now } } : {}),
      ttlResolution: 0,
      fetchMethod: async (uri, _stale, { options }) => {
        const fetched = await this.fetchKeySet(new URL(uri));
        options.ttl = fetched.ttlSeconds * 1000;
        return fetched.keySet;
      },
    });
  }

  /** The set at `jwksUri`, from the cache or fetched; MetadataDocumentError (invalid_client) when it cannot be had. */
  async get(jwksUri: string): Promise<JSONWebKeySet> {
    const keySet = await this.cache.fetch(jwksUri);
    if (!keySet) throw new MetadataDocumentError('unreachable', 'the jwks_uri could not be fetched', undefined, 'Client key set');
    return keySet;
  }

  /** The set fetched again, unless it was fetched within the cool-down (null then). */
  async refetch(jwksUri: string): Promise<JSONWebKeySet | null> {
    const last = this.lastFetchAt.get(jwksUri);
    if (last !== undefined && this.now() - last < KEY_REFETCH_COOLDOWN_MS) return null;
    // Marked before fetching: requests arriving while this fetch is under way wait for the cool-down too.
    this.lastFetchAt.set(jwksUri, this.now());
    const keySet = await this.cache.fetch(jwksUri, { forceRefresh: true });
    return keySet ?? null;
  }

  private async fetchKeySet(url: URL): Promise<{ keySet: JSONWebKeySet; ttlSeconds: number }> {
    this.lastFetchAt.set(url.href, this.now());
    await this.budget.spend(url.host);
    let fetched: Awaited<ReturnType<typeof fetchMetadataDocument>>;
    try {
      fetched = await fetchMetadataDocument(
        url,
        {
          timeoutMs: this.config.fetchTimeoutMs,
          maxBytes: MAX_KEY_SET_BYTES,
          allowSpecialUseAddresses: this.config.allowSpecialUseAddresses,
          extraCaCertificates: this.config.extraCaCertificates,
          resolver: this.overrides.resolver,
        },
        'the jwks_uri',
      );
    } catch (error) {
      if (!(error instanceof MetadataDocumentError)) throw error;
      throw new MetadataDocumentError(error.problem, error.reason, error.internalDetail, 'Client key set');
    }
    const checked = checkPublicKeySet(fetched.body);
    if ('problem' in checked) {
      const reason = `the jwks_uri does not hold a usable JWK Set: ${checked.problem}`;
      throw new MetadataDocumentError('invalid-document', reason, `${url.href}: ${checked.problem}`, 'Client key set');
    }
    const ttlSeconds = freshnessSeconds(fetched.headers, { min: this.config.cacheMinSeconds, max: this.config.cacheMaxSeconds });
    return { keySet: checked.keySet, ttlSeconds };
  }
}
