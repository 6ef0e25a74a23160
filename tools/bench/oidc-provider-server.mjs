#!/usr/bin/env node
// panva's oidc-provider 9 (in-memory adapter) as the reference point of the bench, configured
// like the platform's authorization server: opaque access tokens for the platform API (the
// resource indicator), one hour, client_secret_post; the resource server's client may introspect
// every token. Started by tools/bench/run.mjs in its own process, pinned like the services.
//   env: PORT, OP_RESOURCE (the platform's canonical resource URI), OP_SIGNING_JWK,
//        OP_INTROSPECTION_CLIENT_SECRET, OP_CC_CLIENT_SECRET, OP_SCOPE
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const issuer = `http://127.0.0.1:${port}`;
const resource = process.env.OP_RESOURCE;
const scope = process.env.OP_SCOPE || 'courses:read';
const TTL = 3600;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'resource-server',
      client_secret: process.env.OP_INTROSPECTION_CLIENT_SECRET,
      grant_types: [],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
    },
    {
      client_id: 'bench-cc',
      client_secret: process.env.OP_CC_CLIENT_SECRET,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
      scope,
    },
  ],
  scopes: [scope],
  jwks: { keys: [JSON.parse(process.env.OP_SIGNING_JWK)] },
  cookies: { keys: ['bench-cookie-key-not-secret-000000'] },
  ttl: { AccessToken: TTL, ClientCredentials: TTL },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: {
      enabled: true,
      // The platform's rule: the resource server's credentials learn about every access token.
      allowedPolicy: async (_ctx, client) => client.clientId === 'resource-server',
    },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope, audience: resource, accessTokenTTL: TTL, accessTokenFormat: 'opaque' }),
    },
  },
});
provider.on('server_error', (_ctx, error) => console.error('oidc-provider server_error', error));

const server = provider.listen(port, '127.0.0.1', () => console.log(`oidc-provider ${issuer} ready`));
process.once('disconnect', () => server.close(() => process.exit(0)));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
