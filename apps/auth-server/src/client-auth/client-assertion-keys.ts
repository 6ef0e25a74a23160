import { Injectable } from '@nestjs/common';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import type { DirectoryClient } from '../client-metadata-documents/client-directory';
import { RemoteKeySets } from '../client-metadata-documents/remote-key-sets';
import { type AssertionKeySet, assertionRefused } from './client-assertion';
import { ClientKeysRepository } from './client-keys.repository';

/** Key sets held imported (jose imports each key of a set once, on first use). */
const MAX_IMPORTED_SETS = 1_000;

/**
 * A private_key_jwt client's keys, wherever they are: a metadata document's jwks (changed only
 * when the cached document is fetched again, by its lifetime rules), a registered client's
 * stored jwks, or a jwks_uri (RemoteKeySets: cached, fetched again at most once per cool-down for
 * an unknown kid).
 */
@Injectable()
export class ClientAssertionKeys {
  private readonly imported = new LRUCache<string, JWTVerifyGetKey>({ max: MAX_IMPORTED_SETS });

  constructor(
    private readonly registered: ClientKeysRepository,
    private readonly remote: RemoteKeySets,
  ) {}

  async of(client: DirectoryClient): Promise<AssertionKeySet> {
    const source = client.keys ?? (client.kind === 'metadata_document' ? null : await this.registered.findKeySource(client.id));
    if (!source) throw assertionRefused('no public keys are registered for this client', `no keys for ${client.id}`);
    if ('jwks' in source) {
      const keys = this.local(source.jwks);
      return { current: async () => keys, refreshed: async () => null };
    }
    const { jwksUri } = source;
    return {
      current: async () => this.local(await this.remote.get(jwksUri)),
      refreshed: async () => {
        const again = await this.remote.refetch(jwksUri);
        return again ? this.local(again) : null;
      },
    };
  }

  /** One imported set per distinct content: a stored set read again per request is not imported again. */
  private local(keySet: JSONWebKeySet): JWTVerifyGetKey {
    const content = JSON.stringify(keySet);
    let keys = this.imported.get(content);
    if (!keys) {
      keys = createLocalJWKSet(keySet);
      this.imported.set(content, keys);
    }
    return keys;
  }
}
