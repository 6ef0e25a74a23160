import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import type { RegisteredClient } from '../clients/clients.repository';
import { CIMD_CONFIG, type CimdConfig, isHostAllowed } from './cimd-config';
import { parseClientIdUrl } from './client-id-url';
import { fetchMetadataDocument, type Resolver } from './document-fetcher';
import { type MetadataDocumentClient, validateMetadataDocument } from './document-validation';
import { freshnessSeconds } from './cache-lifetime';
import { MetadataDocumentError, MetadataDocumentFetchLimitError } from './errors';
import { MetadataDocumentClientsRepository } from './metadata-document-clients.repository';

/** A client whose client_id is a metadata document URL, in the shape of a registered client. */
export interface MetadataDocumentRegisteredClient extends RegisteredClient {
  kind: 'metadata_document';
  secretHash: null;
  tokenEndpointAuthMethod: 'none';
  /** host[:port] of the client_id URL. */
  host: string;
  /** Every redirect URI is loopback: the consent page warns that the app runs on this computer. */
  loopbackOnly: boolean;
}

/** Test seams: a DNS stand-in and a clock for the cache. Production passes nothing. */
export interface ResolverOverrides {
  resolver?: Resolver;
  /** Milliseconds, monotonic. */
  now?: () => number;
}
export const CIMD_RESOLVER_OVERRIDES = Symbol('CIMD_RESOLVER_OVERRIDES');

/** Distinct document URLs kept at once; the least recently used goes first. */
const MAX_CACHED_DOCUMENTS = 1_000;

/**
 * Resolves a client_id URL to a client: policy, cache, fetch, validate, and a row in `clients`.
 *
 * Caching (draft "Metadata Caching"): a valid document is kept for its HTTP freshness lifetime
 * clamped to [CIMD_CACHE_MIN_SECONDS, CIMD_CACHE_MAX_SECONDS]; after that the next request
 * fetches it again, so a changed document is used from then on. Failures and invalid
 * documents are never cached. Concurrent requests for one URL share one fetch (lru-cache's
 * fetch() coalesces them).
 */
@Injectable()
export class ClientMetadataDocumentResolver {
  private readonly logger = new Logger('ClientMetadataDocuments');
  private readonly cache: LRUCache<string, MetadataDocumentClient>;
  /** Fetches per host in this process (see fetchesPerHostPerMinute). */
  private readonly fetchBudget: MemoryRateLimitStore;

  constructor(
    @Inject(CIMD_CONFIG) private readonly config: CimdConfig,
    private readonly clients: MetadataDocumentClientsRepository,
    @Optional() @Inject(CIMD_RESOLVER_OVERRIDES) private readonly overrides: ResolverOverrides = {},
  ) {
    const now = overrides.now;
    this.fetchBudget = new MemoryRateLimitStore(10_000, now ?? Date.now);
    this.cache = new LRUCache<string, MetadataDocumentClient>({
      max: MAX_CACHED_DOCUMENTS,
      ttl: config.cacheMaxSeconds * 1000,
      ...(now ? { perf: { now } } : {}),
      // Read the clock on every check: the default keeps a cached "now" for 1 ms behind a timer.
      ttlResolution: 0,
      fetchMethod: async (url, _stale, { options }) => {
        const fetched = await this.fetchAndValidate(new URL(url));
        options.ttl = fetched.ttlSeconds * 1000;
        return fetched.client;
      },
    });
  }

  /** Throws MetadataDocumentError (invalid_client) for every refusal; never anything else for bad input. */
  async resolve(clientId: string): Promise<MetadataDocumentRegisteredClient> {
    if (!this.config.enabled) {
      throw new MetadataDocumentError('host-not-allowed', 'client_id URLs are not accepted by this server');
    }
    const url = parseClientIdUrl(clientId);
    if (!isHostAllowed(url, this.config)) {
      throw new MetadataDocumentError('host-not-allowed', 'the host of this client_id is not allowed by this server');
    }
    let client: MetadataDocumentClient | undefined;
    try {
      client = await this.cache.fetch(url.href);
    } catch (error) {
      if (error instanceof MetadataDocumentError) {
        this.logger.debug(`refused ${url.host}: ${error.internalDetail ?? error.problem}`);
        throw error;
      }
      throw error;
    }
    if (!client) throw new MetadataDocumentError('unreachable', 'the client_id URL could not be fetched');
    // One indexed read per use (as for registered clients): staff may have disabled the
    // client, or the clean-up may have removed a row that never authorized anything.
    const state = (await this.clients.findClientState(client.id)) ?? (await this.clients.saveFetchedDocument(client, new Date()));
    if (state.disabledAt) throw new MetadataDocumentError('disabled', 'this application has been disabled on this server');
    return {
      ...client,
      kind: 'metadata_document',
      secretHash: null,
      createdAt: state.createdAt,
    };
  }

  private async fetchAndValidate(url: URL): Promise<{ client: MetadataDocumentClient; ttlSeconds: number }> {
    // Every distinct URL is a cache miss and failures are never cached, so without a budget an
    // anonymous caller could have this server fetch one site as often as it likes.
    const spent = await this.fetchBudget.hit(url.host, 60_000);
    if (spent.count > this.config.fetchesPerHostPerMinute) {
      throw new MetadataDocumentFetchLimitError(Math.max(1, Math.ceil(spent.resetInMs / 1000)));
    }
    const fetched = await fetchMetadataDocument(url, {
      timeoutMs: this.config.fetchTimeoutMs,
      maxBytes: this.config.maxDocumentBytes,
      allowSpecialUseAddresses: this.config.allowSpecialUseAddresses,
      extraCaCertificates: this.config.extraCaCertificates,
      resolver: this.overrides.resolver,
    });
    const client = validateMetadataDocument(url, fetched.body);
    await this.clients.saveFetchedDocument(client, new Date());
    const ttlSeconds = freshnessSeconds(fetched.headers, { min: this.config.cacheMinSeconds, max: this.config.cacheMaxSeconds });
    return { client, ttlSeconds };
  }
}
