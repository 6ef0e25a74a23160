import { InvalidClientError, InvalidRequestError } from '@platform/oauth-errors';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { basic, BASIC_CHALLENGE, clientDirectoryDouble, confidentialClient, directoryClient } from '../../test/support/unit-fixtures';
import type { DirectoryClient } from '../client-metadata-documents';
import type { RemoteKeySets } from '../client-metadata-documents/remote-key-sets';
import { FormParams } from '../http/form-params';
import { ClientAssertionKeys } from './client-assertion-keys';
import { ClientAssertionVerifier } from './client-assertion-verifier';
import { ClientAuthenticator } from './client-authenticator';
import { JWT_BEARER_ASSERTION_TYPE, readClientCredentials } from './client-credentials';
import type { ClientKeysRepository } from './client-keys.repository';
import type { UsedClientAssertions } from './used-client-assertions.repository';

/**
 * Table-driven spec of private_key_jwt at the authenticator (RFC 7523 §2.2, RFC 7521 §4.2, RFC
 * 6749 §2.3): the real readClientCredentials, ClientAuthenticator, ClientAssertionVerifier and
 * ClientAssertionKeys over doubles of what lies below them (the directory, the stored keys, the
 * jti store), with real signed assertions.
 */

const ISSUER = 'https://platform.example';
const TOKEN_ENDPOINT = `${ISSUER}/api/oauth/token`;
const DOCUMENT_CLIENT = 'https://agent.example/oauth/client.json';
const INTEGRATION = 'integration-with-keys';
const SECRET = 'the-confidential-secret';

let signingKey: CryptoKey;
let publicJwk: JWK;
let authenticator: ClientAuthenticator;
let usedJtis: Set<string>;
let keyReads: string[];

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  signingKey = privateKey;
  publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1' };
});

beforeEach(() => {
  usedJtis = new Set();
  keyReads = [];
  const clients: DirectoryClient[] = [
    directoryClient({ id: 'public-app' }),
    confidentialClient('confidential', SECRET),
    directoryClient({ id: DOCUMENT_CLIENT, kind: 'metadata_document', tokenEndpointAuthMethod: 'private_key_jwt', keys: { jwks: { keys: [publicJwk] } } }),
    directoryClient({ id: INTEGRATION, kind: 'integration', tokenEndpointAuthMethod: 'private_key_jwt' }),
  ];
  const registered: Pick<ClientKeysRepository, 'findKeySource'> = {
    async findKeySource(clientId) {
      keyReads.push(clientId);
      return clientId === INTEGRATION ? { jwks: { keys: [publicJwk] } } : null;
    },
  };
  const used: Pick<UsedClientAssertions, 'recordFirstUse'> = {
    async recordFirstUse(clientId, jti) {
      const key = `${clientId} ${jti}`;
      if (usedJtis.has(key)) return false;
      usedJtis.add(key);
      return true;
    },
  };
  const keys = new ClientAssertionKeys(registered as ClientKeysRepository, {} as RemoteKeySets);
  const verifier = new ClientAssertionVerifier({ issuer: ISSUER }, keys, used as UsedClientAssertions);
  authenticator = new ClientAuthenticator(clientDirectoryDouble(clients), verifier);
});

let jtiCounter = 0;
function assertion(clientId: string, overrides: JWTPayload = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: clientId, sub: clientId, aud: TOKEN_ENDPOINT, exp: now + 60, iat: now, jti: `jti-${++jtiCounter}`, ...overrides })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .sign(signingKey);
}

const form = (value: string) => ({ client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: value });

interface Case {
  name: string;
  request: () => Promise<{ body: Record<string, string>; authorization?: string }>;
  expected: { client: string } | { error: typeof InvalidClientError | typeof InvalidRequestError; description: string; basicChallenge?: boolean };
}

const cases: Case[] = [
  {
    name: 'a metadata-document client with its assertion and client_id',
    request: async () => ({ body: { ...form(await assertion(DOCUMENT_CLIENT)), client_id: DOCUMENT_CLIENT } }),
    expected: { client: DOCUMENT_CLIENT },
  },
  {
    name: 'without client_id: the assertion names the client (RFC 7521 §4.2: client_id OPTIONAL)',
    request: async () => ({ body: form(await assertion(DOCUMENT_CLIENT)) }),
    expected: { client: DOCUMENT_CLIENT },
  },
  {
    name: 'a staff integration, its keys read from its row',
    request: async () => ({ body: { ...form(await assertion(INTEGRATION)), client_id: INTEGRATION } }),
    expected: { client: INTEGRATION },
  },
  {
    name: 'client_id naming another client than the assertion → invalid_client',
    request: async () => ({ body: { ...form(await assertion(INTEGRATION)), client_id: DOCUMENT_CLIENT } }),
    expected: { error: InvalidClientError, description: 'iss must be the client_id' },
  },
  {
    name: 'a private_key_jwt client sending client_id alone (a fall back to none) → invalid_client',
    request: async () => ({ body: { client_id: DOCUMENT_CLIENT } }),
    expected: { error: InvalidClientError, description: 'authenticates with private_key_jwt' },
  },
  {
    name: 'a private_key_jwt client sending a client_secret instead → invalid_client',
    request: async () => ({ body: { client_id: INTEGRATION, client_secret: SECRET } }),
    expected: { error: InvalidClientError, description: 'authenticates with private_key_jwt' },
  },
  {
    name: 'a private_key_jwt client trying HTTP Basic → invalid_client with the Basic challenge',
    request: async () => ({ body: {}, authorization: basic(INTEGRATION, SECRET) }),
    expected: { error: InvalidClientError, description: 'authenticates with private_key_jwt', basicChallenge: true },
  },
  {
    name: 'a public client sending an assertion → invalid_client',
    request: async () => ({ body: { ...form(await assertion('public-app')), client_id: 'public-app' } }),
    expected: { error: InvalidClientError, description: 'not registered for private_key_jwt' },
  },
  {
    name: 'a client_secret client sending an assertion → invalid_client',
    request: async () => ({ body: form(await assertion('confidential')) }),
    expected: { error: InvalidClientError, description: 'not registered for private_key_jwt' },
  },
  {
    name: 'an assertion and a client_secret → invalid_request (RFC 6749 §2.3: one method per request)',
    request: async () => ({ body: { ...form(await assertion(DOCUMENT_CLIENT)), client_secret: SECRET } }),
    expected: { error: InvalidRequestError, description: 'a client_assertion or a client_secret, not both' },
  },
  {
    name: 'an assertion and HTTP Basic → invalid_request (RFC 6749 §2.3)',
    request: async () => ({ body: form(await assertion(DOCUMENT_CLIENT)), authorization: basic('confidential', SECRET) }),
    expected: { error: InvalidRequestError, description: 'a client_assertion or HTTP Basic, not both' },
  },
  {
    name: 'another client_assertion_type → invalid_client (an unsupported method, RFC 6749 §5.2)',
    request: async () => ({ body: { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer', client_assertion: await assertion(DOCUMENT_CLIENT) } }),
    expected: { error: InvalidClientError, description: 'Unsupported client_assertion_type' },
  },
  {
    name: 'a client_assertion without its type → invalid_request (RFC 7521 §4.2: both REQUIRED)',
    request: async () => ({ body: { client_assertion: await assertion(DOCUMENT_CLIENT) } }),
    expected: { error: InvalidRequestError, description: 'client_assertion_type parameter is required' },
  },
  {
    name: 'a client_assertion_type without an assertion → invalid_request',
    request: async () => ({ body: { client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_id: DOCUMENT_CLIENT } }),
    expected: { error: InvalidRequestError, description: 'client_assertion parameter is required' },
  },
  {
    name: 'an assertion that is not a JWT and no client_id → invalid_client naming no client',
    request: async () => ({ body: form('garbage') }),
    expected: { error: InvalidClientError, description: 'names no client' },
  },
  {
    name: 'an assertion for an unknown client → invalid_client',
    request: async () => ({ body: form(await assertion('nobody')) }),
    expected: { error: InvalidClientError, description: 'Client authentication failed' },
  },
];

describe('ClientAuthenticator with client assertions (private_key_jwt)', () => {
  it.each(cases)('$name', async ({ request, expected }) => {
    const { body, authorization } = await request();
    const outcome = (async () => authenticator.authenticate(readClientCredentials(FormParams.from(body), authorization)))();
    if ('client' in expected) {
      expect((await outcome).id).toBe(expected.client);
      return;
    }
    const error = await outcome.then(
      () => undefined,
      (refusal: unknown) => refusal,
    );
    expect(error).toBeInstanceOf(expected.error);
    expect((error as InvalidClientError).description).toContain(expected.description);
    expect((error as InvalidClientError).headers['www-authenticate']).toBe(expected.basicChallenge ? BASIC_CHALLENGE : undefined);
  });

  it('a replayed assertion (its jti used before) → invalid_client', async () => {
    const body = form(await assertion(DOCUMENT_CLIENT));
    await expect(authenticator.authenticate(readClientCredentials(FormParams.from(body), undefined))).resolves.toMatchObject({ id: DOCUMENT_CLIENT });
    await expect(authenticator.authenticate(readClientCredentials(FormParams.from(body), undefined))).rejects.toMatchObject({
      error: 'invalid_client',
      description: expect.stringContaining('was used before'),
    });
  });

  it('the jti is recorded only for an assertion that passed every other check', async () => {
    await expect(
      authenticator.authenticate(readClientCredentials(FormParams.from(form(await assertion(DOCUMENT_CLIENT, { aud: 'https://elsewhere.example' }))), undefined)),
    ).rejects.toMatchObject({ error: 'invalid_client' });
    expect(usedJtis.size).toBe(0);
  });

  it('keys are read from the row only for a registered private_key_jwt client', async () => {
    await authenticator.authenticate(readClientCredentials(FormParams.from(form(await assertion(DOCUMENT_CLIENT))), undefined));
    await authenticator.authenticate(readClientCredentials(FormParams.from({ client_id: 'public-app' }), undefined));
    expect(keyReads).toEqual([]);
    await authenticator.authenticate(readClientCredentials(FormParams.from(form(await assertion(INTEGRATION))), undefined));
    expect(keyReads).toEqual([INTEGRATION]);
  });
});

describe('readClientCredentials with an assertion: the client_id that per-client limits see', () => {
  it('is the client_id parameter when sent', async () => {
    expect(readClientCredentials(FormParams.from({ ...form(await assertion(INTEGRATION)), client_id: 'named' }), undefined).clientId).toBe('named');
  });

  it("is the assertion's unverified sub otherwise", async () => {
    expect(readClientCredentials(FormParams.from(form(await assertion(DOCUMENT_CLIENT))), undefined)).toMatchObject({ clientId: DOCUMENT_CLIENT });
  });

  it('is undefined for an assertion that cannot be read', () => {
    expect(readClientCredentials(FormParams.from(form('not.a.jwt')), undefined).clientId).toBeUndefined();
  });
});

describe('an authenticator without the verifier (unit doubles) refuses every assertion', () => {
  it('invalid_client, never a pass', async () => {
    const bare = new ClientAuthenticator(
      clientDirectoryDouble([directoryClient({ id: DOCUMENT_CLIENT, tokenEndpointAuthMethod: 'private_key_jwt', keys: { jwks: { keys: [publicJwk] } } })]),
    );
    await expect(bare.authenticate(readClientCredentials(FormParams.from(form(await assertion(DOCUMENT_CLIENT))), undefined))).rejects.toMatchObject({
      error: 'invalid_client',
    });
  });
});
