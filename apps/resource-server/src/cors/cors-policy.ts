import type { FastifyCorsOptions } from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerCors } from '@platform/service-runtime';
import { mcpCorsOptionsFor } from '../mcp/mcp-cors';
import { isMcpPath } from '../mcp/mcp-http-policy';
import type { McpBrowserOrigins } from '../mcp/mcp-origins';

/**
 * Browser clients on any origin call the API and read its documents with bearer or DPoP tokens,
 * never cookies: any origin, without credentials, so no origin can ride on a user's session.
 * A DPoP client sends its proof in `DPoP` and reads a nonce asked for in `DPoP-Nonce` (RFC 9449 §9).
 */
export const API_CORS: FastifyCorsOptions = {
  origin: '*',
  credentials: false,
  methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'DPoP'],
  exposedHeaders: ['WWW-Authenticate', 'DPoP-Nonce'],
  maxAge: 600,
  // An OPTIONS request that is not a preflight (no Origin or Access-Control-Request-Method)
  // goes on to routing and gets the JSON error every other request gets, not a text/plain 400.
  strictPreflight: false,
};

/** The policy of a request: /mcp's own (mcp-cors.ts), the API's everywhere else (the query string never matters). */
export function corsOptionsFor(url: string, origin: string | undefined, mcpOrigins: McpBrowserOrigins): FastifyCorsOptions {
  return isMcpPath(url) ? mcpCorsOptionsFor(origin, mcpOrigins) : API_CORS;
}

/** @fastify/cors with a per-request policy, as the auth server does (apps/auth-server/src/cors/cors-policy.ts). */
export async function registerResourceCors(app: NestFastifyApplication, mcpOrigins: McpBrowserOrigins): Promise<void> {
  await registerCors(app, { delegator: (request, callback) => callback(null, corsOptionsFor(request.url, request.headers.origin, mcpOrigins)) });
}
