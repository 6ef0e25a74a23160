import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './config-error';

/** Injection token of the CimdConfig. */
export const CIMD_CONFIG = Symbol('CIMD_CONFIG');

/**
 * The draft's "Maximum Response Size": authorization servers "SHOULD" limit the response size
 * when fetching a document; 5 KB is the draft's suggestion and plenty for real documents.
 */
export const MAX_DOCUMENT_BYTES = 5 * 1024;

export interface CimdConfig {
  enabled: boolean;
  /** Exact host names or `*.example.com` patterns; empty = any host not denied. */
  allowedHosts: readonly string[];
  deniedHosts: readonly string[];
  /** Whole fetch (connect, TLS, headers, body). */
  fetchTimeoutMs: number;
  maxDocumentBytes: number;
  /** Documents are cached for their HTTP freshness lifetime, clamped to [min, max]. */
  cacheMinSeconds: number;
  cacheMaxSeconds: number;
  /**
   * Fetches per host per minute (metadata documents and jwks_uri key sets), for every instance
   * together (host-fetch-budget.ts): a caller cannot make the servers fetch one site over and over
   * with distinct URLs, whose failures are never cached.
   */
  fetchesPerHostPerMinute: number;
  /** TESTS ONLY: lets documents come from loopback and private addresses. Refused in production. */
  allowSpecialUseAddresses: boolean;
  /** TESTS ONLY: PEM certificates trusted in addition to the system roots. Refused in production. */
  extraCaCertificates?: string;
}

const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const hostList = z
  .string()
  .default('')
  .transform((value) => value.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host !== ''))
  .pipe(z.array(z.string().regex(/^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/, 'host names or *.domain patterns, comma-separated')));

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /**
   * Accept https URLs as client_id (Client ID Metadata Documents); also sets the metadata's
   * client_id_metadata_document_supported.
   */
  CIMD_ENABLED: booleanFlag.default(true),
  /**
   * Hosts (`claude.ai`), `host:port` or `*.example.com` (subdomains only) whose documents are accepted,
   * comma-separated; empty: any public host.
   */
  CIMD_ALLOWED_HOSTS: hostList,
  /** Hosts whose documents are refused, in the same syntax; wins over CIMD_ALLOWED_HOSTS. */
  CIMD_DENIED_HOSTS: hostList,
  /** Deadline of a whole document fetch (connect, TLS, headers, body). */
  CIMD_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(3_000),
  /** The shortest a document is cached: for its HTTP freshness lifetime, within these two bounds. */
  CIMD_CACHE_MIN_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  /** The longest a document is cached. */
  CIMD_CACHE_MAX_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(86_400),
  /**
   * Fetches per host a minute (documents and jwks_uri key sets, every instance together); past it 429 with
   * Retry-After.
   */
  CIMD_FETCHES_PER_HOST_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  /** TESTS ONLY: lets documents come from loopback and private addresses. Refused when NODE_ENV=production. */
  CIMD_ALLOW_SPECIAL_USE_HOSTS: booleanFlag.default(false),
  /** TESTS ONLY: a PEM file of certificates trusted besides the system roots. Refused when NODE_ENV=production. */
  CIMD_EXTRA_CA_FILE: z.string().min(1).optional(),
});

/**
 * CIMD settings from the environment, validated once at start. The two test-only knobs
 * (loopback/private hosts, an extra certificate authority) make the server fetch from places
 * a production server must never reach: with NODE_ENV=production they stop the start.
 */
export function loadCimdConfig(env: Record<string, string | undefined> = process.env): CimdConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid ${issue.path.join('.')}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production') {
    for (const name of ['CIMD_ALLOW_SPECIAL_USE_HOSTS', 'CIMD_EXTRA_CA_FILE'] as const) {
      if (env[name] !== undefined && env[name] !== '' && env[name] !== 'false' && env[name] !== '0') {
        throw new ConfigError(`${name} is for tests only and is refused when NODE_ENV=production`);
      }
    }
  }
  if (e.CIMD_CACHE_MIN_SECONDS > e.CIMD_CACHE_MAX_SECONDS) {
    throw new ConfigError('Invalid CIMD_CACHE_MIN_SECONDS: must not exceed CIMD_CACHE_MAX_SECONDS');
  }
  let extraCaCertificates: string | undefined;
  if (e.CIMD_EXTRA_CA_FILE) {
    try {
      extraCaCertificates = readFileSync(e.CIMD_EXTRA_CA_FILE, 'utf8');
    } catch (error) {
      throw new ConfigError(`Invalid CIMD_EXTRA_CA_FILE: ${(error as Error).message}`);
    }
    if (!extraCaCertificates.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ConfigError('Invalid CIMD_EXTRA_CA_FILE: no PEM certificate in the file');
    }
  }
  return {
    enabled: e.CIMD_ENABLED,
    allowedHosts: e.CIMD_ALLOWED_HOSTS,
    deniedHosts: e.CIMD_DENIED_HOSTS,
    fetchTimeoutMs: e.CIMD_FETCH_TIMEOUT_MS,
    maxDocumentBytes: MAX_DOCUMENT_BYTES,
    cacheMinSeconds: e.CIMD_CACHE_MIN_SECONDS,
    cacheMaxSeconds: e.CIMD_CACHE_MAX_SECONDS,
    fetchesPerHostPerMinute: e.CIMD_FETCHES_PER_HOST_PER_MINUTE,
    allowSpecialUseAddresses: e.CIMD_ALLOW_SPECIAL_USE_HOSTS,
    extraCaCertificates,
  };
}

/** Deny wins; an empty allow list allows every host. Patterns: `host`, `host:port`, `*.domain`. */
export function isHostAllowed(url: URL, config: Pick<CimdConfig, 'allowedHosts' | 'deniedHosts'>): boolean {
  const matches = (pattern: string) =>
    pattern.startsWith('*.')
      ? url.hostname.endsWith(pattern.slice(1)) && url.hostname.length > pattern.length - 1
      : pattern === url.hostname || pattern === url.host;
  if (config.deniedHosts.some(matches)) return false;
  return config.allowedHosts.length === 0 || config.allowedHosts.some(matches);
}
