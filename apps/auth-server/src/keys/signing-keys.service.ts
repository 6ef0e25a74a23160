import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { calculateJwkThumbprint, type CryptoKey, importJWK, type JWK, SignJWT } from 'jose';
import { createPrivateKey, generateKeyPair } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { AUTH_CONFIG, type AuthConfig, ConfigError } from '../config/auth-config';
import { Clock } from '../common/clock';
import { KeyPublications, type Publication } from './key-publications.repository';
import { chooseSigningKey } from './signing-key-choice';

export const ID_TOKEN_ALG = 'RS256';
/** How long clients may cache the JWKS (its Cache-Control). */
export const JWKS_MAX_AGE_SECONDS = 300;
/** OIDC_SIGNING_KEY_ACTIVATION_SECONDS when a configuration does not say. */
const DEFAULT_ACTIVATION_SECONDS = 600;
/** How often the publications are written and read again, at most (sooner with a short activation). */
const MAX_REFRESH_MS = 10_000;

interface LoadedKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** When (this process's clock) it has been published long enough to sign; unknown until the database says. */
  activeFrom?: number;
}

/**
 * The ID token signing key set (OIDC_SIGNING_KEYS). Safe to rotate across replicas in one edit
 * (put the new key first, keep the old one after it): a replica whose set has a new key
 * publishes it at once, records in the database when it was first published by any replica
 * (signing_key_publications), and signs with it only once it has been published for
 * OIDC_SIGNING_KEY_ACTIVATION_SECONDS (the JWKS's max-age and a rollout's length); until then the
 * next key of the set signs (chooseSigningKey). Every replica's JWKS is its own keys and every
 * key some replica was configured with within a token lifetime (the ID tokens a removed key
 * signed still verify until they expire), so a replica not yet rolled out publishes the new key
 * too. Times are the database's: replicas' clocks need not agree.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SigningKeysService.name);
  private keys: LoadedKey[] = [];
  /** The public keys of every replica (signing_key_publications), as last read. */
  private published: JWK[] = [];
  private readonly activationMs: number;
  private readonly retentionSeconds: number;
  private timer?: NodeJS.Timeout;
  private signingKid?: string;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    private readonly publications: KeyPublications,
    // Optional: the system clock unless a test moves it.
    @Optional() private readonly clock: Clock = new Clock(),
  ) {
    this.activationMs = (config.signingKeys.activationSeconds ?? DEFAULT_ACTIVATION_SECONDS) * 1000;
    // An ID token lives as long as the access token it comes with; a client may have cached the JWKS just before.
    this.retentionSeconds = config.ttl.accessToken + JWKS_MAX_AGE_SECONDS;
  }

  async onModuleInit(): Promise<void> {
    const privateJwks = await this.loadPrivateJwks();
    this.keys = await Promise.all(privateJwks.map((jwk, index) => toLoadedKey(jwk, index)));
    if (this.activationMs < (JWKS_MAX_AGE_SECONDS + 10) * 1000) {
      this.logger.warn(`OIDC_SIGNING_KEY_ACTIVATION_SECONDS is under the JWKS's max-age (${JWKS_MAX_AGE_SECONDS} s): a client may verify a new key's ID tokens against a key set cached before it was published`);
    }
    try {
      await this.refresh();
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      // The database is away: the last key of the set signs until it answers (chooseSigningKey).
      this.logger.warn(`signing key publications not recorded yet: ${(error as Error).message}`);
    }
    this.timer = setInterval(() => void this.refresh().catch((error: Error) => this.logger.warn(`signing key publications not refreshed: ${error.message}`)), this.refreshMs());
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The public JWK set (RFC 7517 §5): this replica's keys and those of every other, no private members. */
  jwks(): { keys: JWK[] } {
    const own = this.keys.map((key) => key.publicJwk);
    const kids = new Set(own.map((key) => key.kid));
    return { keys: [...own, ...this.published.filter((key) => !kids.has(key.kid))] };
  }

  async sign(claims: Record<string, unknown>, expiresInSeconds: number): Promise<string> {
    const active = this.signingKey();
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ID_TOKEN_ALG, kid: active.kid, typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(`${expiresInSeconds}s`)
      .sign(active.privateKey);
  }

  /** The kid that signs now (the rotation's state, for a test or an operator's check). */
  signingKeyId(): string {
    return this.signingKey().kid;
  }

  /**
   * Publishes this replica's keys (a new one starts its activation delay, a known one says it is
   * still configured), learns for each when it may sign, and reads every replica's keys.
   */
  async refresh(): Promise<void> {
    const recorded = await this.publications.publish(this.keys.map((key) => ({ kid: key.kid, publicJwk: key.publicJwk })));
    const now = this.clock.now().getTime();
    for (const publication of recorded) {
      const key = this.keys.find((candidate) => candidate.kid === publication.kid);
      if (!key) continue;
      assertSameKey(key, publication);
      key.activeFrom = now + Math.max(0, this.activationMs - publication.publishedForMs);
    }
    this.published = await this.publications.current(this.retentionSeconds);
  }

  private signingKey(): LoadedKey {
    const key = chooseSigningKey(this.keys, this.clock.now().getTime());
    if (key.kid !== this.signingKid) {
      if (this.signingKid !== undefined || this.keys.length > 1) this.logger.log(`ID tokens are signed with key ${key.kid}`);
      this.signingKid = key.kid;
    }
    return key;
  }

  /** Often enough that a key is in every replica's JWKS well before it signs. */
  private refreshMs(): number {
    return Math.max(1_000, Math.min(MAX_REFRESH_MS, this.activationMs / 3));
  }

  private async loadPrivateJwks(): Promise<JWK[]> {
    const { json, file } = this.config.signingKeys;
    if (json) return parseKeySet(json, 'OIDC_SIGNING_KEYS');
    if (file) {
      try {
        return parseKeySet(await readFile(file, 'utf8'), 'OIDC_SIGNING_KEYS_FILE');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !this.config.embedded) throw error;
        return [await this.generateAndKeep(file)];
      }
    }
    if (this.config.env === 'production') throw new ConfigError('OIDC_SIGNING_KEYS: no signing key configured');
    this.logger.warn('No signing key configured: using an ephemeral key (ID tokens will not verify after a restart)');
    return [await generatePrivateJwk()];
  }

  /** Embedded mode only: a key generated on first start and kept in the data folder. */
  private async generateAndKeep(file: string): Promise<JWK> {
    const jwk = await generatePrivateJwk();
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify([jwk], null, 2), { mode: 0o600 });
    await chmod(file, 0o600);
    this.logger.log(`Generated an ID token signing key (kid ${jwk.kid}) in ${file}`);
    return jwk;
  }
}

export async function generatePrivateJwk(): Promise<JWK> {
  // The new key is exported as JWK through a key object of its own, made from its PKCS #8 form:
  // a key object that shares its key with the generation job can deadlock Node 20 (seen in CI:
  // the export holds the key's mutex, allocates, the GC destroys the finished job, whose
  // destructor waits for the same mutex). tools/containers/generate-env.cjs makes the stack's
  // keys the same way.
  const { privateKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  const jwk = createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' }) as JWK;
  jwk.kid = await calculateJwkThumbprint(jwk);
  jwk.alg = ID_TOKEN_ALG;
  jwk.use = 'sig';
  return jwk;
}

function parseKeySet(text: string, variable: string): JWK[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`${variable}: not valid JSON`);
  }
  const keys = Array.isArray(parsed) ? parsed : (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new ConfigError(`${variable}: expected a non-empty JSON array of private RSA JWKs (or {"keys": [...]})`);
  }
  keys.forEach((key: JWK, index) => {
    if (key?.kty !== 'RSA' || typeof key.d !== 'string' || typeof key.kid !== 'string') {
      throw new ConfigError(`${variable}: key ${index} must be a private RSA JWK with a kid`);
    }
  });
  return keys as JWK[];
}

async function toLoadedKey(jwk: JWK, index: number): Promise<LoadedKey> {
  try {
    const privateKey = (await importJWK({ ...jwk, alg: ID_TOKEN_ALG }, ID_TOKEN_ALG)) as CryptoKey;
    const { kty, n, e, kid } = jwk;
    return { kid: kid as string, privateKey, publicJwk: { kty, n, e, kid, alg: ID_TOKEN_ALG, use: 'sig' } };
  } catch (error) {
    throw new ConfigError(`signing key ${index}: ${(error as Error).message}`);
  }
}

/** A kid is one key: a set that reuses a published kid for other key material is refused. */
function assertSameKey(key: LoadedKey, publication: Publication): void {
  const { n, e } = publication.publicJwk;
  if (n !== key.publicJwk.n || e !== key.publicJwk.e) {
    throw new ConfigError(`OIDC_SIGNING_KEYS: kid ${key.kid} was published before with other key material; give the new key its own kid (its RFC 7638 thumbprint)`);
  }
}
