import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { calculateJwkThumbprint, type CryptoKey, importJWK, type JWK, SignJWT } from 'jose';
import { createPrivateKey, generateKeyPair } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { AUTH_CONFIG, type AuthConfig, ConfigError } from '../config/auth-config';

export const ID_TOKEN_ALG = 'RS256';

interface LoadedKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * The ID token signing key set. The first key signs; every key is published in the JWKS so
 * that tokens signed before a rotation still verify. Rotation: put a new key first in
 * OIDC_SIGNING_KEYS (or its file), keep the old ones until their tokens have expired.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit {
  private readonly logger = new Logger(SigningKeysService.name);
  private keys: LoadedKey[] = [];

  constructor(@Inject(AUTH_CONFIG) private readonly config: AuthConfig) {}

  async onModuleInit(): Promise<void> {
    const privateJwks = await this.loadPrivateJwks();
    this.keys = await Promise.all(privateJwks.map((jwk, index) => toLoadedKey(jwk, index)));
  }

  /** The public JWK set (RFC 7517 §5): no private members. */
  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((key) => key.publicJwk) };
  }

  async sign(claims: Record<string, unknown>, expiresInSeconds: number): Promise<string> {
    const active = this.keys[0];
    if (!active) throw new Error('no signing key loaded');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ID_TOKEN_ALG, kid: active.kid, typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(`${expiresInSeconds}s`)
      .sign(active.privateKey);
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
