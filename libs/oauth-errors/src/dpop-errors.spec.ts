import Fastify from 'fastify';
import { InvalidDpopProofError, UseDpopNonceError } from './oauth-error';
import { sendOAuthError } from './oauth-exception.filter';

async function answer(error: unknown) {
  const app = Fastify();
  app.get('/', async (_request, reply) => sendOAuthError(reply, error));
  const response = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return { status: response.statusCode, nonce: response.headers['dpop-nonce'], body: response.json() as unknown };
}

describe('DPoP errors (RFC 9449 §12.2) through the one error writer', () => {
  it('invalid_dpop_proof is a 400 at the token endpoint', async () => {
    expect(await answer(new InvalidDpopProofError('The DPoP proof is too old'))).toEqual({
      status: 400,
      nonce: undefined,
      body: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof is too old' },
    });
  });

  it('use_dpop_nonce carries the fresh nonce in DPoP-Nonce', async () => {
    expect(await answer(new UseDpopNonceError('17.abc'))).toEqual({
      status: 400,
      nonce: '17.abc',
      body: { error: 'use_dpop_nonce', error_description: 'Authorization server requires nonce in DPoP proof' },
    });
  });

  it('both become 401 at a resource server', async () => {
    expect((await answer(new InvalidDpopProofError('x').withStatus(401))).status).toBe(401);
    expect((await answer(new UseDpopNonceError('17.abc').withStatus(401))).status).toBe(401);
  });
});
