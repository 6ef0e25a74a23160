import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OAUTH_PATHS } from '@platform/contracts';
import {
  AUTHORIZATION_SERVER_OPENAPI_FILE,
  buildAuthorizationServerOpenApi,
  renderAuthorizationServerOpenApi,
  type AuthorizationServerOpenApi,
} from './authorization-server-document';

const root = join(__dirname, '../../../..');

describe('the authorization server OpenAPI description', () => {
  let document: AuthorizationServerOpenApi;
  beforeAll(async () => {
    document = await buildAuthorizationServerOpenApi();
  });

  it('is what `npx nx run auth-server:openapi` writes from the controllers today (the committed file is not stale)', () => {
    const committed = readFileSync(join(root, AUTHORIZATION_SERVER_OPENAPI_FILE), 'utf8');
    expect(committed).toEqual(renderAuthorizationServerOpenApi(document));
  });

  it('describes the endpoints of the API, and not the sign-in forms, pages, health or metrics', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        `POST ${OAUTH_PATHS.registration}`,
        // AuthorizeController: @ApiAuthorizeEndpoint() and @ApiAuthorizeByPostEndpoint() on its two handlers.
        `GET ${OAUTH_PATHS.authorization}`,
        `POST ${OAUTH_PATHS.authorization}`,
        `POST ${OAUTH_PATHS.token}`,
        `POST ${OAUTH_PATHS.revocation}`,
        `POST ${OAUTH_PATHS.introspection}`,
        `GET ${OAUTH_PATHS.userinfo}`,
        `POST ${OAUTH_PATHS.userinfo}`,
        `GET ${OAUTH_PATHS.authorizationServerMetadata}`,
        `GET ${OAUTH_PATHS.openIdConfiguration}`,
        `GET ${OAUTH_PATHS.jwks}`,
      ]),
    );
    const described = new Set<string>(Object.values(OAUTH_PATHS));
    expect(Object.keys(document.paths).filter((path) => !described.has(path))).toEqual([]);
  });

  it('lists no Authorization header parameter (OpenAPI 3.0.3 §4.7.12.1: security says how to authenticate)', () => {
    const parameters = Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation: { parameters?: { in?: string; name?: string }[] }) => operation.parameters ?? []),
    );
    expect(parameters.filter((parameter) => parameter.in === 'header' && parameter.name?.toLowerCase() === 'authorization')).toEqual([]);
  });

  it('documents the DPoP proof header (RFC 9449 §4.1) where a proof is taken: the token endpoint and userinfo, optional', () => {
    const withDpopHeader = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { parameters?: { in?: string; name?: string; required?: boolean }[] }>).flatMap(([method, operation]) =>
        (operation.parameters ?? []).filter((parameter) => parameter.in === 'header').map((parameter) => `${method.toUpperCase()} ${path} ${parameter.name} ${parameter.required}`),
      ),
    );
    expect(withDpopHeader.sort()).toEqual(
      [`POST ${OAUTH_PATHS.token} DPoP false`, `GET ${OAUTH_PATHS.userinfo} DPoP false`, `POST ${OAUTH_PATHS.userinfo} DPoP false`].sort(),
    );
  });

  it('describes DPoP: the token type, cnf.jkt, dpop_jkt, dpop_bound_access_tokens, the algorithms, its errors and DPoP-Nonce', () => {
    type Schema = { properties: Record<string, { enum?: string[]; type?: string; properties?: Record<string, unknown> }> };
    const schemas = document.components?.schemas as Record<string, Schema>;
    expect(schemas['TokenResponse'].properties['token_type'].enum).toEqual(['Bearer', 'DPoP']);
    expect(schemas['IntrospectionResponse'].properties['token_type'].enum).toEqual(['Bearer', 'DPoP', 'refresh_token']);
    expect(Object.keys(schemas['IntrospectionResponse'].properties['cnf'].properties ?? {})).toEqual(['jkt']);
    expect(schemas['ClientRegistrationRequest'].properties['dpop_bound_access_tokens'].type).toBe('boolean');
    expect(schemas['ClientRegistrationResponse'].properties['dpop_bound_access_tokens'].type).toBe('boolean');
    expect(schemas['AuthorizationServerMetadata'].properties['dpop_signing_alg_values_supported'].type).toBe('array');

    const paths = document.paths as Record<string, Record<string, { parameters?: { name?: string }[]; responses: Record<string, { description: string; headers?: Record<string, unknown> }> }>>;
    expect(paths[OAUTH_PATHS.authorization]['get'].parameters?.map((parameter) => parameter.name)).toContain('dpop_jkt');
    const refused = paths[OAUTH_PATHS.token]['post'].responses['400'];
    expect(refused.description).toContain('`invalid_dpop_proof`');
    expect(refused.description).toContain('`use_dpop_nonce`');
    expect(Object.keys(refused.headers ?? {})).toEqual(['DPoP-Nonce']);
  });

  it('resolves every $ref to a component of its own', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)];
    expect(refs.length).toBeGreaterThan(0);
    const components = document.components as Record<string, Record<string, unknown>>;
    expect(refs.filter(([, kind, name]) => components[kind]?.[name] === undefined).map(([ref]) => ref)).toEqual([]);
  });
});
