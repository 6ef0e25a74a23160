import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { MemoryRateLimitStore } from '@platform/rate-limits';
import type { ClientKeySource } from '../clients/client-key-source';
import type { RegisteredClient } from '../clients/clients.repository';
import { CIMD_CONFIG, type CimdConfig, isHostAllowed } from '../config/cimd-config';
import { parseClientIdUrl } from './client-id-url';
import { fetchMetadataDocument } from './document-fetcher';
import { type DocumentAuthMethod, type MetadataDocumentClient, validateMetadataDocument } from './document-validation';
import { freshnessSeconds } from './cache-lifetime';
import { MetadataDocumentError } from './errors';
import { HostFetchBudget } from './host-fetch-budget';
import { MetadataDocumentClientsRepository } from './metadata-document-clients.repository';
import { CIMD_RESOLVER_OVERRIDES, type ResolverOverrides } from './resolver-overrides';

export { CIMD_RESOLVER_OVERRIDES, type ResolverOverrides } from './resolver-overrides';

/** A client whose client_id is a metadata document URL, in the shape of a registered client. */
export interface MetadataDocumentRegisteredClient extends RegisteredClient {
  kind: 'metadata_document';
  secretHash: null;
  tokenEndpointAuthMethod: DocumentAuthMethod;
  /** private_key_jwt: where its public keys are; null for a public client. */
  keys: ClientKeySource | null;
  /** host[:port] of the client_id URL. */
  host: string;
  /** Every redirect URI is loopback: the consent page warns that the app runs on this computer. */
  loopbackOnly: boolean;
}

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
  /** Fetches per host, for every instance together (host-fetch-budget.ts). */
  private readonly fetchBudget: HostFetchBudget;

  constructor(
    @Inject(CIMD_CONFIG) private readonly config: CimdConfig,
    private readonly clients: MetadataDocumentClientsRepository,
    @Optional() @Inject(CIMD_RESOLVER_OVERRIDES) private readonly overrides: ResolverOverrides = {},
    // The module always provides it; a resolver built by hand (tests) counts in its own process.
    @Optional() fetchBudget?: HostFetchBudget,
  ) {
    const now = overrides.now;
    this.fetchBudget = fetchBudget ?? new HostFetchBudget(config, new MemoryRateLimitStore(10_000, now ?? Date.now));
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
    await this.fetchBudget.spend(url.host);
    const fetched = await fetchMetadataDocument(url, {
      timeoutMs: this.config.fetchTimeoutMs,
      maxBytes: this.config.maxDocumentBytes,
      allowSpecialUseAddresses: this.config.allowSpecialUseAddresses,
      extraCaCertificates: this.config.extraCaCertificates,
      resolver: this.overrides.resolver,
    });
    const client = validateMetadataDocument(url, fetched.body);
    // The keys' host is fetched from too: it is held to the same host policy as documents.
    if (client.keys && 'jwksUri' in client.keys && !isHostAllowed(new URL(client.keys.jwksUri), this.config)) {
      throw new MetadataDocumentError('host-not-allowed', 'the host of its jwks_uri is not allowed by this server', `${url.href}: jwks_uri ${client.keys.jwksUri}`);
    }
    await this.clients.saveFetchedDocument(client, new Date());
    const ttlSeconds = freshnessSeconds(fetched.headers, { min: this.config.cacheMinSeconds, max: this.config.cacheMaxSeconds });
    return { client, ttlSeconds };
  }
}
