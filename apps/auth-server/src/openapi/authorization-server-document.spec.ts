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
    expect(parameters.filter((parameter) => parameter.in === 'header')).toEqual([]);
  });

  it('resolves every $ref to a component of its own', () => {
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)];
    expect(refs.length).toBeGreaterThan(0);
    const components = document.components as Record<string, Record<string, unknown>>;
    expect(refs.filter(([, kind, name]) => components[kind]?.[name] === undefined).map(([ref]) => ref)).toEqual([]);
  });
});
