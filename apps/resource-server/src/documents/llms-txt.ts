import { OAUTH_PATHS as AS } from '@platform/contracts';
import { RESOURCE_PATHS as RS } from '../common/resource-paths';
import { DEFAULT_RESOURCE_NAME, type DocumentsOptions } from './documents-options';

/**
 * `/llms.txt` in the llms.txt format (https://llmstxt.org): an H1 with the name, a blockquote
 * summary, then H2 sections of markdown link lists, `- [name](url): notes`.
 */
export function renderLlmsTxt(options: DocumentsOptions): string {
  const base = options.publicBaseUrl;
  const name = options.resourceName ?? DEFAULT_RESOURCE_NAME;
  const link = (title: string, url: string, notes: string) => `- [${title}](${url}): ${notes}`;

  return `# ${name}

> The course platform's API for schools: courses and curricula, lecturers, events, posts, students,
> memberships and sales. A REST API under ${base}${RS.api} protected by OAuth 2.0 access tokens, and an
> MCP server (Streamable HTTP): public catalog tools, and the school's private tools with a token.

Tokens come from the authorization server ${options.issuer} through the authorization code flow with
PKCE; clients register themselves, or use the https URL of a client ID metadata document as their
client_id. One token, issued for the resource ${base}, serves the API and the MCP endpoint.

## Docs

${[
  link('Authentication guide', `${base}${RS.authGuide}`, 'register a client, PKCE, authorize, tokens, call the API, refresh, revoke; MCP tools and step-up; client ID metadata documents; the scope table'),
  link('OpenAPI document', `${base}${RS.openApi}`, 'every API operation with the OAuth scopes it requires (OpenAPI 3.0)'),
  link('Pricing', `${base}${RS.pricing}`, 'plans, limits and API rate limits'),
].join('\n')}

## API

${[
  link('REST API', `${base}${RS.api}`, 'the API base URL; send `Authorization: Bearer <token>`'),
  link('MCP endpoint', `${base}${RS.mcp}`, 'Model Context Protocol server over Streamable HTTP (POST JSON-RPC), revisions 2026-07-28 and 2025-03-26 to 2025-11-25; public catalog tools without a token, private tools by scope with one'),
].join('\n')}

## Discovery

${[
  link('Protected resource metadata', `${base}${RS.protectedResourceMetadata}`, 'RFC 9728: the resource, its authorization server and scopes'),
  link('Protected resource metadata for MCP', `${base}${RS.protectedResourceMetadataMcp}`, `RFC 9728 document of the resource ${base}${RS.mcp}: the scopes its tools use`),
  link('Authorization server metadata', `${options.issuer}${AS.authorizationServerMetadata}`, 'RFC 8414: every OAuth endpoint'),
].join('\n')}
`;
}
