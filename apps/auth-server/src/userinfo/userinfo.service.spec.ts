import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK, SignJWT } from 'jose';
import type { DpopReplayGuard } from '@platform/dpop';
import { OAuthError } from '@platform/oauth-errors';
import { type AuthConfig } from '../config/auth-config';
import type { UsedDpopProofs } from '../token/dpop/used-dpop-proofs.repository';
import type { TokenLookup } from '../token/token-lookup';
import type { AccessTokenWithUser } from '../token/token-rows';
import { UserInfoDpop } from './userinfo-dpop';
import { UserInfoService } from './userinfo.service';

const ISSUER = 'https://learn.example';
const USERINFO_URL = `${ISSUER}/api/oauth/userinfo`;
const ALGS = 'algs="ES256 ES384 ES512 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA Ed25519"';
const USER = { id: 'user-1', name: 'Dana Demo', email: 'dana@example.test', emailVerified: true, schoolId: 'school-1', role: 'owner' };
const CLAIMS = { sub: 'user-1', name: 'Dana Demo', school_id: 'school-1', role: 'owner' };

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function newKey(): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

function proof(key: Key, token: string, claims: { htm?: string; htu?: string } = {}): Promise<string> {
  return new SignJWT({ htm: 'GET', htu: USERINFO_URL, jti: randomUUID(), ath: createHash('sha256').update(token).digest('base64url'), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .setIssuedAt()
    .sign(key.privateKey);
}

/** What the service throws: status, body and challenge. */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(OAuthError);
  const { status, headers } = error as OAuthError;
  return { status, ...(error as OAuthError).toBody(), challenge: headers['www-authenticate'] };
}

describe('UserInfoService', () => {
  const tokens = new Map<string, AccessTokenWithUser>();
  const used = new Set<string>();
  const replay: DpopReplayGuard = {
    firstUse: async (key) => (used.has(key) ? false : (used.add(key), true)),
  };
  const lookup = { findActiveAccessToken: async (raw: string) => tokens.get(raw) ?? null } as unknown as TokenLookup;
  const config = { issuer: ISSUER, dpop: { proofMaxAgeSeconds: 60 } } as AuthConfig;
  const service = new UserInfoService(lookup, new UserInfoDpop(config, replay as UsedDpopProofs));

  let key: Key;
  let otherKey: Key;
  const BEARER = 'bearer-token-aaaaaaaaaaaaaaaaaaaa';
  const BOUND = 'bound-token-bbbbbbbbbbbbbbbbbbbbb';
  const NO_OPENID = 'bound-no-openid-ccccccccccccccccc';

  beforeAll(async () => {
    [key, otherKey] = await Promise.all([newKey(), newKey()]);
    tokens.set(BEARER, { scope: 'openid profile', dpopJkt: null, grant: { user: USER } });
    tokens.set(BOUND, { scope: 'openid profile', dpopJkt: key.jkt, grant: { user: USER } });
    tokens.set(NO_OPENID, { scope: 'profile', dpopJkt: key.jkt, grant: { user: USER } });
  });

  it('answers a Bearer token bound to no key', async () => {
    await expect(service.userInfo({ method: 'GET', authorization: `Bearer ${BEARER}` })).resolves.toEqual(CLAIMS);
  });

  it('answers a bound token with a proof of its key, on GET and POST, the scheme in any case', async () => {
    await expect(service.userInfo({ method: 'GET', authorization: `DPoP ${BOUND}`, dpop: await proof(key, BOUND) })).resolves.toEqual(CLAIMS);
    await expect(service.userInfo({ method: 'POST', authorization: `dpop ${BOUND}`, dpop: await proof(key, BOUND, { htm: 'POST' }) })).resolves.toEqual(CLAIMS);
  });

  it('challenges a request without credentials in both schemes, with no error code', async () => {
    expect(await refusal(service.userInfo({ method: 'GET' }))).toEqual({
      status: 401,
      error: 'invalid_token',
      error_description: 'An access token is required',
      challenge: `Bearer, DPoP ${ALGS}`,
    });
  });

  it('refuses a bound token presented as Bearer (RFC 9449 §7.2)', async () => {
    const description = 'This access token is bound to a DPoP key: present it with the DPoP scheme and a proof';
    expect(await refusal(service.userInfo({ method: 'GET', authorization: `Bearer ${BOUND}` }))).toEqual({
      status: 401,
      error: 'invalid_token',
      error_description: description,
      challenge: `Bearer error="invalid_token", error_description="${description}", DPoP ${ALGS}`,
    });
  });

  it('refuses a proof by another key than the token is bound to', async () => {
    expect(await refusal(service.userInfo({ method: 'GET', authorization: `DPoP ${BOUND}`, dpop: await proof(otherKey, BOUND) }))).toEqual({
      status: 401,
      error: 'invalid_token',
      error_description: 'Invalid DPoP key binding',
      challenge: `Bearer, DPoP error="invalid_token", error_description="Invalid DPoP key binding", ${ALGS}`,
    });
  });

  it('refuses a token bound to no key presented with the DPoP scheme', async () => {
    const answer = await refusal(service.userInfo({ method: 'GET', authorization: `DPoP ${BEARER}`, dpop: await proof(key, BEARER) }));
    expect(answer).toMatchObject({ status: 401, error: 'invalid_token', error_description: 'This access token is not bound to a DPoP key: present it with the Bearer scheme' });
  });

  it.each([
    ['no proof', async () => undefined, 'Exactly one DPoP header is required'],
    ['two proofs', async () => [await proof(key, BOUND), await proof(key, BOUND)], 'Exactly one DPoP header is required'],
    ['a proof for another URL', () => proof(key, BOUND, { htu: `${ISSUER}/api/oauth/token` }), 'The DPoP proof is for another URL'],
    ['a proof for another method', () => proof(key, BOUND, { htm: 'POST' }), 'The DPoP proof is for another HTTP method'],
    ['a proof for another access token', () => proof(key, BEARER), 'The DPoP proof is for another access token'],
  ] as [string, () => Promise<string | string[] | undefined>, string][])('refuses %s with invalid_dpop_proof in the DPoP challenge', async (_case, make, description) => {
    expect(await refusal(service.userInfo({ method: 'GET', authorization: `DPoP ${BOUND}`, dpop: await make() }))).toEqual({
      status: 401,
      error: 'invalid_dpop_proof',
      error_description: description,
      challenge: `Bearer, DPoP error="invalid_dpop_proof", error_description="${description}", ${ALGS}`,
    });
  });

  it('refuses a proof used before', async () => {
    const once = await proof(key, BOUND);
    await expect(service.userInfo({ method: 'GET', authorization: `DPoP ${BOUND}`, dpop: once })).resolves.toEqual(CLAIMS);
    expect(await refusal(service.userInfo({ method: 'GET', authorization: `DPoP ${BOUND}`, dpop: once }))).toMatchObject({
      status: 401,
      error: 'invalid_dpop_proof',
      error_description: 'The DPoP proof was used before',
    });
  });

  it('answers insufficient_scope in the challenge of the scheme used only', async () => {
    expect(await refusal(service.userInfo({ method: 'GET', authorization: `DPoP ${NO_OPENID}`, dpop: await proof(key, NO_OPENID) }))).toEqual({
      status: 403,
      error: 'insufficient_scope',
      error_description: 'The access token lacks a required scope: openid',
      challenge: `DPoP error="insufficient_scope", error_description="The access token lacks a required scope: openid", scope="openid", ${ALGS}`,
    });
  });

  it.each([
    ['Bearer', 'Bearer not a token', `Bearer error="invalid_request", error_description="The Authorization header must be 'Bearer <token>'"`],
    ['DPoP', 'DPoP', `DPoP error="invalid_request", error_description="The Authorization header must be 'DPoP <token>'", ${ALGS}`],
    [
      'another scheme',
      'Basic dXNlcjpwYXNz',
      `Bearer error="invalid_request", error_description="The Authorization header must be 'Bearer <token>' or 'DPoP <token>'", DPoP ${ALGS}`,
    ],
  ])('answers a malformed %s header with invalid_request in its challenge', async (_scheme, authorization, challenge) => {
    expect(await refusal(service.userInfo({ method: 'GET', authorization }))).toMatchObject({ status: 400, error: 'invalid_request', challenge });
  });
});
