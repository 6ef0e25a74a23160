import { Injectable } from '@nestjs/common';
import { ClientAuthenticator } from '../client-auth/client-authenticator';
import { readClientCredentials } from '../client-auth/client-credentials';
import { FormParams } from '../http/form-params';
import { tokenRevokedByClient } from '../security-events/recorded-events';
import { SecurityEvents } from '../security-events/security-events';
import { GrantRevoker } from '../token/grant-revoker';
import { TokenLookup } from '../token/token-lookup';
import { parseTokenTypeHint } from '../token/token-type-hint';

/** RFC 7009 token revocation. */
@Injectable()
export class RevocationService {
  constructor(
    private readonly clientAuth: ClientAuthenticator,
    private readonly lookup: TokenLookup,
    private readonly revoker: GrantRevoker,
    private readonly events: SecurityEvents,
  ) {}

  /** `clientAddress`: the caller's (request.ip), for the security event of a revocation. */
  async revoke(body: unknown, authorization?: string, clientAddress: string | null = null): Promise<void> {
    const params = FormParams.from(body);
    const client = await this.clientAuth.authenticate(readClientCredentials(params, authorization));
    const token = params.required('token', 4096);
    const hint = parseTokenTypeHint(params.optional('token_type_hint', 50));

    const found = await this.lookup.findActive(token, hint);
    if (found?.kind === 'access_token') {
      // §2.2: "invalid tokens do not cause an error response"; neither does another client's
      // token, which is left alone without revealing that it exists.
      if (found.token.clientId !== client.id) return;
      await this.revoker.revokeAccessToken(found.token);
      const { grantId, grant } = found.token;
      await this.events.record(tokenRevokedByClient({ grantId, clientId: client.id, userId: grant.userId, schoolId: grant.schoolId }, 'access_token', clientAddress));
      return;
    }
    // A refresh token ends its grant, current or already rotated out: a client revoking the one
    // it holds after a parallel refresh (refresh-reuse.ts) must not leave the grant alive.
    const refresh = found?.kind === 'refresh_token' ? found.token : await this.lookup.findRotatedRefreshToken(token);
    if (!refresh || refresh.clientId !== client.id) return;
    // §2.1: revoking a refresh token "SHOULD also invalidate all access tokens based on the
    // same authorization grant".
    await this.revoker.revokeGrant(refresh.grantId, 'revocation');
    const { grantId, grant } = refresh;
    await this.events.record(tokenRevokedByClient({ grantId, clientId: client.id, userId: grant.userId, schoolId: grant.schoolId }, 'refresh_token', clientAddress));
  }
}
