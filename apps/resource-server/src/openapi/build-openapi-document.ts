import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { OAUTH_PATHS as AS } from '@platform/contracts';
import { RESOURCE_PATHS as RS } from '../documents/documents-options';
import { AUTHORIZATION_SERVER_TAG, authorizationServerPaths, BEARER_RESPONSES, OAUTH_SCHEMAS } from './authorization-server-paths';
import { applyOperationSecurity, OperationAuthIndex } from './operation-security';
import { OAUTH2_SCHEME, OPENAPI_VERSION, type OpenApiOptions } from './openapi-options';

/**
 * The OpenAPI 3.0 document of the whole origin: the resource server's routes as
 * @nestjs/swagger sees them, each with the security requirement of its scope metadata, and
 * the authorization server's endpoints. Call it after `app.init()`, once every module's
 * controllers are registered.
 */
export function buildOpenApiDocument(app: INestApplication, options: OpenApiOptions): OpenAPIObject {
  const base = options.publicBaseUrl;
  const at = (path: string) => `${options.issuer}${path}`;
  const config = new DocumentBuilder()
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setTitle(options.title ?? 'Course Platform API')
    .setVersion(options.version ?? '1.0.0')
    .setDescription(description(options))
    .addServer(base)
    .addOAuth2(
      {
        type: 'oauth2',
        description: `Authorization code flow with PKCE (S256) and resource indicators; see ${base}${RS.authGuide}`,
        flows: {
          authorizationCode: {
            authorizationUrl: at(AS.authorization),
            tokenUrl: at(AS.token),
            refreshUrl: at(AS.token),
            scopes: Object.fromEntries(Object.entries(options.scopes).map(([scope, { description }]) => [scope, description])),
          },
        },
      },
      OAUTH2_SCHEME,
    )
    .addSecurity('clientBasic', {
      type: 'http',
      scheme: 'basic',
      description: 'Confidential client credentials (client_secret_basic) at the token, revocation and introspection endpoints',
    })
    .addTag(AUTHORIZATION_SERVER_TAG, `The OAuth 2.0 and OpenID Connect endpoints, served by the authorization server at ${options.issuer}`)
    .build();

  const index = new OperationAuthIndex(app.get(ModulesContainer));
  const document = SwaggerModule.createDocument(app, config, { operationIdFactory: index.operationIdFactory });
  applyOperationSecurity(document, index);

  // The authorization server is another service; on this platform it shares the origin, and
  // its paths get their own server only if it ever does not.
  const servers = options.issuer === base ? undefined : [{ url: options.issuer }];
  for (const [path, item] of Object.entries(authorizationServerPaths())) {
    if (document.paths[path]) throw new Error(`OpenAPI: ${path} is served by both the resource and the authorization server`);
    document.paths[path] = servers ? { ...item, servers } : item;
  }
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...OAUTH_SCHEMAS },
    responses: { ...document.components?.responses, ...BEARER_RESPONSES },
  };
  return document;
}

function description(options: OpenApiOptions): string {
  const base = options.publicBaseUrl;
  return [
    `The course platform's API for schools. Every operation lists the OAuth 2.0 scopes it needs under \`security\`;`,
    'an operation whose security includes `{}` also serves callers without a token (the public view of `?school=`).',
    '',
    `- Authentication guide: ${base}${RS.authGuide}`,
    `- Protected resource metadata: ${base}${RS.protectedResourceMetadata}`,
    `- MCP endpoint (Streamable HTTP): ${base}${RS.mcp}`,
    `- Pricing: ${base}${RS.pricing}`,
  ].join('\n');
}
