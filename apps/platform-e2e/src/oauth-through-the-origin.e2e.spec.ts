/** The OAuth life cycle through the one origin (the gateway), with openid-client. */
import * as oidc from 'openid-client';
import { DEMO, obtainTokens, registerClient } from './support/oauth-client';
import { baseUrl } from './support/platform';

jest.setTimeout(60_000);

describe('OAuth through the one origin', () => {
  it('discovers, registers, authorizes, exchanges, reads userinfo, refreshes and revokes', async () => {
    const config = await registerClient('origin check');
    expect(config.serverMetadata().issuer).toBe(baseUrl());
    const tokens = await obtainTokens(config, 'openid email students:read');
    expect(tokens.claims()?.iss).toBe(baseUrl());

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()?.sub as string);
    expect(userinfo).toMatchObject({ email: DEMO.email, school_id: 'demo-school' });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    await oidc.tokenRevocation(config, refreshed.refresh_token as string);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('carries a request id through the gateway', async () => {
    const response = await fetch(`${baseUrl()}/.well-known/oauth-authorization-server`, {
      headers: { 'x-request-id': 'e2e-request-0001' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('e2e-request-0001');
  });
});
