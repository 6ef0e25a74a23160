// Test-only: mints access tokens inside the real authorization server started by
// apps/auth-server/test/support/test-auth-server.ts, so that the resource server's real
// introspection path is exercised without driving the login and consent pages (the lead's
// cross-service e2e does that).
import { randomUUID } from 'node:crypto';
// Test-only reach into the authorization server (apps never import apps in their code).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { PrismaService as AuthPrisma } from '../../../auth-server/src/database/prisma.service';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { generateOpaqueToken, hashToken } from '../../../auth-server/src/crypto/tokens';
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { TestAuthServer } from '../../../auth-server/test/support/test-auth-server';

const CLIENT_ID = 'resource-server-tests';

export async function mintAccessToken(
  auth: TestAuthServer,
  grant: { userId: string; schoolId: string; scopes: readonly string[] },
): Promise<string> {
  const prisma = auth.app.get(AuthPrisma);
  const scope = grant.scopes.join(' ');
  await prisma.client.upsert({
    where: { id: CLIENT_ID },
    update: {},
    create: {
      id: CLIENT_ID,
      name: 'resource-server tests',
      applicationType: 'native',
      redirectUris: ['http://127.0.0.1/callback'],
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scope,
      firstAuthorizedAt: new Date(),
    },
  });
  const authTime = new Date();
  const created = await prisma.grant.create({
    data: {
      id: randomUUID(),
      clientId: CLIENT_ID,
      userId: grant.userId,
      schoolId: grant.schoolId,
      scope,
      resource: auth.config.apiResource,
      authTime,
    },
  });
  // The row the token endpoint would write (token-queries.ts); only its hash is stored.
  const accessToken = generateOpaqueToken();
  const issuedAt = new Date();
  await prisma.accessToken.create({
    data: {
      id: randomUUID(),
      tokenHash: hashToken(accessToken),
      grantId: created.id,
      clientId: CLIENT_ID,
      userId: grant.userId,
      schoolId: grant.schoolId,
      scope,
      audience: auth.config.apiResource,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + auth.config.ttl.accessToken * 1000),
    },
  });
  return accessToken;
}
