import { LocalEventBus } from '@platform/event-bus';
import { RevocationPublisher } from '../events/revocation-publisher';
import { RevocationTrust } from '../events/revocation-trust';
import { ActiveAccessTokens } from './active-access-tokens';
import { GrantRevoker } from './grant-revoker';
import type { ActiveAccessTokenRow } from './token-rows';
import type { TokensRepository } from './tokens.repository';

const HELD: ActiveAccessTokenRow = {
  id: 'at-1',
  tokenHash: 'hash-1',
  grantId: 'grant-1',
  clientId: 'client-a',
  scope: 'courses:read',
  issuedAt: new Date(),
  expiresAt: new Date(Date.now() + 60_000),
  dpopJkt: null,
  grant: { userId: 'user-1', schoolId: 'school-1', resource: 'https://platform.example' },
};

/** A revoker over a recording repository and publisher, and live tokens that hold HELD. */
async function setup(given: { accessTokenLive?: boolean; grantTokens?: string[] } = {}) {
  const calls: string[] = [];
  const tokens: Pick<TokensRepository, 'revokeGrant' | 'revokeAccessToken'> = {
    async revokeGrant(grantId) {
      calls.push(`revokeGrant ${grantId}`);
      return given.grantTokens ?? [HELD.tokenHash];
    },
    async revokeAccessToken(tokenId) {
      calls.push(`revokeAccessToken ${tokenId}`);
      return given.accessTokenLive ?? true;
    },
  };
  const publisher: Pick<RevocationPublisher, 'publish'> = {
    async publish(hashes, reason) {
      // What this instance answers at the moment the event goes out.
      const held = await active.read(HELD.tokenHash, async () => null);
      calls.push(`publish ${hashes.join(',')} ${reason} (${held ? 'still held here' : 'no longer held here'})`);
    },
  };
  const active = new ActiveAccessTokens(new RevocationTrust(new LocalEventBus()));
  await active.afterIssue(async () => HELD, (token) => token);
  const revoker = new GrantRevoker(tokens as TokensRepository, publisher as RevocationPublisher, active);
  return { revoker, calls };
}

describe('GrantRevoker', () => {
  it('ends a grant, drops its live access tokens here, then publishes their hashes', async () => {
    const { revoker, calls } = await setup();
    await revoker.revokeGrant('grant-1', 'refresh_token_reuse');
    expect(calls).toEqual(['revokeGrant grant-1', 'publish hash-1 refresh_token_reuse (no longer held here)']);
  });

  it('publishes a grant that ended no live access token too (the revocation is counted)', async () => {
    const { revoker, calls } = await setup({ grantTokens: [] });
    await revoker.revokeGrant('grant-1', 'code_replay');
    expect(calls).toEqual(['revokeGrant grant-1', 'publish  code_replay (still held here)']);
  });

  it('revokes one access token, drops it here and publishes it', async () => {
    const { revoker, calls } = await setup();
    await revoker.revokeAccessToken(HELD);
    expect(calls).toEqual(['revokeAccessToken at-1', 'publish hash-1 revocation (no longer held here)']);
  });

  it('publishes nothing for an access token another request revoked meanwhile', async () => {
    const { revoker, calls } = await setup({ accessTokenLive: false });
    await revoker.revokeAccessToken(HELD);
    expect(calls).toEqual(['revokeAccessToken at-1']);
  });
});
