import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { baseUrl } from './platform';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
export const DEMO = { email: 'demo@academy.test', password: 'demo-password' };
export const OTHER = { email: 'other@academy.test', password: 'other-password' };
const insecure = { execute: [oidc.allowInsecureRequests] };

/** A public client registered through the origin, the way an agent would do it. */
export function registerClient(name = 'e2e agent'): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(baseUrl()),
    { client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
    oidc.None(),
    insecure,
  );
}

/** The code flow with PKCE, signing in as `account` and approving, then the code exchange. */
export async function obtainTokens(
  config: oidc.Configuration,
  scope: string,
  account = DEMO,
  extra: Record<string, string> = {},
) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  const agent = new BrowserLikeAgent(baseUrl());
  const login = await agent.open(url.toString());
  const consent = await agent.submit(login, { email: account.email, password: account.password });
  // A consent this user gave the client before is remembered: the code comes at once.
  const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
  if (!callback.location) throw new Error(`no redirect after consent: ${callback.status}`);
  return oidc.authorizationCodeGrant(config, new URL(callback.location), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    idTokenExpected: scope.split(' ').includes('openid'),
  });
}
