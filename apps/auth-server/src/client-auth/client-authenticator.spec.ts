import { InvalidClientError, InvalidRequestError } from '@platform/oauth-errors';
import { hashToken } from '../crypto/tokens';
import { FormParams } from '../http/form-params';
import { authenticatorOver, basic, directoryClient, type ExpectedOAuthError, expectOAuthError } from '../../test/support/unit-fixtures';
import { readClientCredentials } from './client-credentials';

/**
 * Table-driven unit spec of client authentication (RFC 6749 §2.3, §2.3.1, §5.2). Each case names
 * the clients the directory holds, the request (form parameters and Authorization header, read by
 * the real readClientCredentials), and the exact outcome plus the directory lookups. The
 * directory is an in-memory double of ClientDirectory.findClient (test/support/unit-fixtures.ts).
 */

const SECRET = 'the-confidential-secret';

const CLIENTS = [
  directoryClient({ id: 'public-app' }),
  directoryClient({ id: 'confidential-post', tokenEndpointAuthMethod: 'client_secret_post', secretHash: hashToken(SECRET) }),
  directoryClient({ id: 'confidential-basic', tokenEndpointAuthMethod: 'client_secret_basic', secretHash: hashToken(SECRET) }),
  directoryClient({ id: 'confidential-no-hash', tokenEndpointAuthMethod: 'client_secret_post', secretHash: null }),
];
/** A client_id URL whose metadata document the directory refuses. */
const REFUSED_DOCUMENT = 'https://app.example/refused-client.json';

/** The authenticator over the directory double, recording each lookup; it refuses REFUSED_DOCUMENT as the real one would. */
function authenticator(lookups: string[]) {
  return authenticatorOver(CLIENTS, (clientId) => {
    lookups.push(clientId);
    if (clientId === REFUSED_DOCUMENT) throw new InvalidClientError('The client metadata document was refused', 'document refused');
  });
}

interface Case {
  name: string;
  request: { body: Record<string, string>; authorization?: string };
  expected: { client: string; lookups: string[] } | (ExpectedOAuthError & { basicChallenge: boolean; lookups: string[] });
}

const FAILED = 'Client authentication failed';

const cases: Case[] = [
  {
    name: 'a public client identifies itself with client_id alone',
    request: { body: { client_id: 'public-app' } },
    expected: { client: 'public-app', lookups: ['public-app'] },
  },
  {
    name: 'a confidential client with its secret in the body (client_secret_post)',
    request: { body: { client_id: 'confidential-post', client_secret: SECRET } },
    expected: { client: 'confidential-post', lookups: ['confidential-post'] },
  },
  {
    name: 'a confidential client with its secret in HTTP Basic (client_secret_basic, §2.3.1 MUST)',
    request: { body: {}, authorization: basic('confidential-basic', SECRET) },
    expected: { client: 'confidential-basic', lookups: ['confidential-basic'] },
  },
  {
    name: 'either method is accepted whichever was registered (same secret, same TLS)',
    request: { body: {}, authorization: basic('confidential-post', SECRET) },
    expected: { client: 'confidential-post', lookups: ['confidential-post'] },
  },
  {
    name: 'a public client that sends a client_secret → invalid_client',
    request: { body: { client_id: 'public-app', client_secret: 'anything' } },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'a public client sent a client_secret',
      basicChallenge: false,
      lookups: ['public-app'],
    },
  },
  {
    name: 'a public client with a secret in HTTP Basic → invalid_client with the Basic challenge (§5.2)',
    request: { body: {}, authorization: basic('public-app', 'anything') },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'a public client sent a client_secret',
      basicChallenge: true,
      lookups: ['public-app'],
    },
  },
  {
    name: 'a confidential client without its secret → invalid_client, no challenge (Basic not used)',
    request: { body: { client_id: 'confidential-post' } },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'wrong or missing client_secret',
      basicChallenge: false,
      lookups: ['confidential-post'],
    },
  },
  {
    name: 'a confidential client with a wrong secret in the body → invalid_client, no challenge',
    request: { body: { client_id: 'confidential-post', client_secret: `${SECRET}x` } },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'wrong or missing client_secret',
      basicChallenge: false,
      lookups: ['confidential-post'],
    },
  },
  {
    name: 'a confidential client with a wrong secret in HTTP Basic → invalid_client with the Basic challenge',
    request: { body: {}, authorization: basic('confidential-basic', 'wrong') },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'wrong or missing client_secret',
      basicChallenge: true,
      lookups: ['confidential-basic'],
    },
  },
  {
    name: 'a confidential client with no stored secret hash is never authenticated',
    request: { body: { client_id: 'confidential-no-hash', client_secret: SECRET } },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'wrong or missing client_secret',
      basicChallenge: false,
      lookups: ['confidential-no-hash'],
    },
  },
  {
    name: 'an unknown client → invalid_client (§5.2: "unknown client")',
    request: { body: { client_id: 'nobody' } },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'unknown client_id',
      basicChallenge: false,
      lookups: ['nobody'],
    },
  },
  {
    name: 'an unknown client in HTTP Basic → invalid_client with the Basic challenge',
    request: { body: {}, authorization: basic('nobody', 'secret') },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: FAILED,
      detail: 'unknown client_id',
      basicChallenge: true,
      lookups: ['nobody'],
    },
  },
  {
    name: 'no client authentication at all → invalid_client, no lookup',
    request: { body: {} },
    expected: { error: InvalidClientError, code: 'invalid_client', description: FAILED, detail: 'no client_id', basicChallenge: false, lookups: [] },
  },
  {
    name: 'a refused client metadata document → its invalid_client, without challenge in the body',
    request: { body: { client_id: REFUSED_DOCUMENT } },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: 'The client metadata document was refused',
      basicChallenge: false,
      lookups: [REFUSED_DOCUMENT],
    },
  },
  {
    name: 'a refused client metadata document in HTTP Basic → invalid_client with the Basic challenge',
    request: { body: {}, authorization: basic(REFUSED_DOCUMENT, 'secret') },
    expected: {
      error: InvalidClientError,
      code: 'invalid_client',
      description: 'The client metadata document was refused',
      basicChallenge: true,
      lookups: [REFUSED_DOCUMENT],
    },
  },
  {
    name: 'malformed Basic credentials → invalid_client with the Basic challenge, no lookup',
    request: { body: {}, authorization: `Basic ${Buffer.from('no-separator').toString('base64')}` },
    expected: { error: InvalidClientError, code: 'invalid_client', description: 'Malformed Basic credentials', basicChallenge: true, lookups: [] },
  },
  {
    name: 'HTTP Basic and client_secret in the body → invalid_request (§2.3: one method per request)',
    request: { body: { client_secret: SECRET }, authorization: basic('confidential-basic', SECRET) },
    expected: {
      error: InvalidRequestError,
      code: 'invalid_request',
      description: 'Use one client authentication method: HTTP Basic or client_secret in the body, not both',
      basicChallenge: false,
      lookups: [],
    },
  },
];

describe('ClientAuthenticator (RFC 6749 §2.3, §5.2 invalid_client)', () => {
  it.each(cases)('$name', async ({ request, expected }) => {
    const lookups: string[] = [];

    const outcome = (async () => authenticator(lookups).authenticate(readClientCredentials(FormParams.from(request.body), request.authorization)))();

    if ('error' in expected) await expectOAuthError(outcome, expected);
    else expect((await outcome).id).toBe(expected.client);
    expect(lookups).toEqual(expected.lookups);
  });
});
