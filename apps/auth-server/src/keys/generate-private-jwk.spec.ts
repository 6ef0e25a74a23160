import { calculateJwkThumbprint, importJWK, jwtVerify, SignJWT } from 'jose';
import { generatePrivateJwk, ID_TOKEN_ALG } from './signing-keys.service';

describe('generatePrivateJwk', () => {
  it('makes a private RS256 JWK whose kid is its RFC 7638 thumbprint, and whose public half verifies what it signs', async () => {
    const jwk = await generatePrivateJwk();
    expect(jwk).toMatchObject({ kty: 'RSA', alg: ID_TOKEN_ALG, use: 'sig', e: 'AQAB' });
    for (const member of ['n', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const) expect(jwk[member]).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(jwk.n as string, 'base64url')).toHaveLength(256);
    expect(jwk.kid).toBe(await calculateJwkThumbprint(jwk));

    const token = await new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: ID_TOKEN_ALG, kid: jwk.kid }).sign(await importJWK(jwk, ID_TOKEN_ALG));
    const { kty, n, e } = jwk;
    const { payload } = await jwtVerify(token, await importJWK({ kty, n, e }, ID_TOKEN_ALG));
    expect(payload.sub).toBe('user-1');
  });

  it('makes a new key every time', async () => {
    const [first, second] = await Promise.all([generatePrivateJwk(), generatePrivateJwk()]);
    expect(first.kid).not.toBe(second.kid);
  });
});
