import { DpopNonces } from '@platform/dpop';
import { LocalEventBus } from '@platform/event-bus';
import { InvalidDpopProofError, InvalidTokenError, type OAuthError, UseDpopNonceError } from '@platform/oauth-errors';
import { dpopProof, type ProofKey, proofKey } from '../test/dpop-proofs';
import { type BearerAuthOptions, resolveOptions } from './options';
import type { TokenPrincipal } from './principal';
import { type ProofCarryingRequest, TokenAuthenticator } from './token-authenticator';
import type { TokenValidator } from './token-validator';

const PUBLIC_BASE = 'https://learn.example.com';
const URL_CALLED = `${PUBLIC_BASE}/api/v1/students`;

function principal(jkt?: string): TokenPrincipal {
  return { kind: 'token', schoolId: 'demo-school', userId: 'user-1', clientId: 'agent', scopes: ['students:read'], expiresAt: 2_000_000_000, ...(jkt ? { jkt } : {}) };
}

/** The authenticator over a validator that knows the tokens given (token → the key it is bound to, or none). */
function authenticator(tokens: Record<string, string | undefined>, dpop: BearerAuthOptions['dpop'] = {}) {
  const validator = {
    validate: async (token: string) => {
      if (!(token in tokens)) throw new InvalidTokenError('The access token is invalid, expired or revoked');
      return principal(tokens[token]);
    },
  } as unknown as TokenValidator;
  const options = resolveOptions({
    introspectionEndpoint: 'http://127.0.0.1:1/introspect',
    clientId: 'resource-server',
    clientSecret: 'secret',
    resource: PUBLIC_BASE,
    resourceMetadataUrl: `${PUBLIC_BASE}/.well-known/oauth-protected-resource`,
    eventBus: new LocalEventBus(),
    dpop,
  });
  return new TokenAuthenticator(options, validator);
}

function request(proof: string | string[] | undefined, method = 'GET', url = '/api/v1/students'): ProofCarryingRequest {
  return { method, url, headers: proof === undefined ? {} : { dpop: proof } };
}

async function refusal(attempt: Promise<unknown>): Promise<OAuthError> {
  try {
    await attempt;
  } catch (error) {
    return error as OAuthError;
  }
  throw new Error('accepted');
}

describe('TokenAuthenticator', () => {
  let key: ProofKey;
  let otherKey: ProofKey;

  beforeAll(async () => {
    [key, otherKey] = await Promise.all([proofKey(), proofKey()]);
  });

  describe('DPoP scheme (RFC 9449 §7)', () => {
    it('accepts a bound token with a proof of its key for this request', async () => {
      const tokens = authenticator({ bound: key.jkt });
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound' });
      await expect(tokens.dpop('bound', request(proof))).resolves.toEqual(principal(key.jkt));
    });

    it('compares htu with the public base URL and the path called, the query left out', async () => {
      const tokens = authenticator({ bound: key.jkt });
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound' });
      await expect(tokens.dpop('bound', request(proof, 'GET', '/api/v1/students?limit=5'))).resolves.toEqual(principal(key.jkt));
    });

    it('refuses a proof for another URL: 401 invalid_dpop_proof', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: `${PUBLIC_BASE}/api/v1/courses`, token: 'bound' });
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request(proof)));
      expect(error).toBeInstanceOf(InvalidDpopProofError);
      expect(error).toMatchObject({ status: 401, description: 'The DPoP proof is for another URL' });
    });

    it('refuses a proof for another origin (the Host header is never believed)', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: 'https://evil.example/api/v1/students', token: 'bound' });
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request(proof)));
      expect(error).toMatchObject({ error: 'invalid_dpop_proof', status: 401 });
    });

    it('refuses a proof for another method', async () => {
      const proof = await dpopProof(key, { htm: 'POST', htu: URL_CALLED, token: 'bound' });
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request(proof)));
      expect(error).toMatchObject({ error: 'invalid_dpop_proof', status: 401, description: 'The DPoP proof is for another HTTP method' });
    });

    it('refuses a stale proof (iat before the window)', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound', iat: Math.floor(Date.now() / 1000) - 120 });
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request(proof)));
      expect(error).toMatchObject({ error: 'invalid_dpop_proof', status: 401, description: 'The DPoP proof is too old' });
    });

    it('refuses a replayed proof (jti single use)', async () => {
      const tokens = authenticator({ bound: key.jkt });
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound' });
      await tokens.dpop('bound', request(proof));
      const error = await refusal(tokens.dpop('bound', request(proof)));
      expect(error).toMatchObject({ error: 'invalid_dpop_proof', status: 401, description: 'The DPoP proof was used before' });
    });

    it('refuses a proof of another key than the token is bound to: invalid_token', async () => {
      const proof = await dpopProof(otherKey, { htm: 'GET', htu: URL_CALLED, token: 'bound' });
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request(proof)));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.description).toBe('Invalid DPoP key binding');
    });

    it('refuses a proof made for another access token (ath)', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'another-token' });
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request(proof)));
      expect(error).toMatchObject({ error: 'invalid_dpop_proof', description: 'The DPoP proof is for another access token' });
    });

    it('refuses two DPoP headers', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound' });
      const second = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound' });
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request([proof, second])));
      expect(error).toMatchObject({ error: 'invalid_dpop_proof', status: 401, description: 'Exactly one DPoP header is required' });
    });

    it('refuses a DPoP request without a proof', async () => {
      const error = await refusal(authenticator({ bound: key.jkt }).dpop('bound', request(undefined)));
      expect(error).toMatchObject({ error: 'invalid_dpop_proof', status: 401, description: 'Exactly one DPoP header is required' });
    });

    it('refuses a token bound to no key under the DPoP scheme: invalid_token (the client believes it is bound)', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'unbound' });
      const error = await refusal(authenticator({ unbound: undefined }).dpop('unbound', request(proof)));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.description).toBe('This access token is not bound to a DPoP key: present it with the Bearer scheme');
    });

    it('refuses an invalid token after a good proof: invalid_token', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'revoked' });
      expect(await refusal(authenticator({}).dpop('revoked', request(proof)))).toBeInstanceOf(InvalidTokenError);
    });
  });

  describe('server nonces (RFC 9449 §9), when configured', () => {
    const nonces = new DpopNonces(new Uint8Array(32).fill(7), 300);

    it('answers a proof without the nonce with 401 use_dpop_nonce and a fresh nonce in DPoP-Nonce', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound' });
      const error = await refusal(authenticator({ bound: key.jkt }, { nonces }).dpop('bound', request(proof)));
      expect(error).toBeInstanceOf(UseDpopNonceError);
      expect(error.status).toBe(401);
      expect(error.headers['dpop-nonce']).toBe(nonces.current());
    });

    it('accepts the retry carrying that nonce', async () => {
      const proof = await dpopProof(key, { htm: 'GET', htu: URL_CALLED, token: 'bound', nonce: nonces.current() });
      await expect(authenticator({ bound: key.jkt }, { nonces }).dpop('bound', request(proof))).resolves.toEqual(principal(key.jkt));
    });
  });

  describe('Bearer scheme', () => {
    it('accepts a token bound to no key', async () => {
      await expect(authenticator({ plain: undefined }).bearer('plain')).resolves.toEqual(principal());
    });

    it('refuses a DPoP-bound token presented as Bearer: invalid_token (RFC 9449 §7.2)', async () => {
      const error = await refusal(authenticator({ bound: key.jkt }).bearer('bound'));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.description).toBe('This access token is bound to a DPoP key: present it with the DPoP scheme and a proof');
    });
  });
});
