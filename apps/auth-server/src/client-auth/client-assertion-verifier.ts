import { Inject, Injectable } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import type { DirectoryClient } from '../client-metadata-documents/client-directory';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { assertionRefused, verifyClientAssertion } from './client-assertion';
import { ClientAssertionKeys } from './client-assertion-keys';
import { UsedClientAssertions } from './used-client-assertions.repository';

/**
 * private_key_jwt (RFC 7523 §2.2, OpenID Connect Core §9) for one client: the assertion verified
 * against its keys (client-assertion.ts), then its jti recorded as used, on every instance at
 * once. Recorded last, so an assertion refused for another reason does not fill the store.
 */
@Injectable()
export class ClientAssertionVerifier {
  private readonly audiences: readonly string[];

  constructor(
    @Inject(AUTH_CONFIG) config: Pick<AuthConfig, 'issuer'>,
    private readonly keys: ClientAssertionKeys,
    private readonly used: UsedClientAssertions,
  ) {
    // RFC 7523 §3: "the token endpoint URL of the authorization server MAY be used as a value for
    // an aud element"; the issuer identifier is the server's own identity (RFC 8414 §2).
    this.audiences = [config.issuer, `${config.issuer}${OAUTH_PATHS.token}`];
  }

  async verify(client: DirectoryClient, assertion: string, now = Date.now()): Promise<void> {
    const keys = await this.keys.of(client);
    const verified = await verifyClientAssertion(assertion, keys, { clientId: client.id, audiences: this.audiences, now: Math.floor(now / 1000) });
    if (!(await this.used.recordFirstUse(client.id, verified.jti, verified.acceptedUntil))) {
      throw assertionRefused('this client_assertion was used before: make a new one, with a new jti, for every request', `replayed jti of ${client.id}`);
    }
  }
}
