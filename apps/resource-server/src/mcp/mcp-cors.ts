import type { FastifyCorsOptions } from '@fastify/cors';
import type { McpBrowserOrigins } from './mcp-origins';

/**
 * CORS of /mcp for a browser-based MCP client on an allowed origin: that origin (never `*`: the
 * endpoint refuses every other one with 403, so a grant to `*` would promise what the next
 * request does not keep), with `Vary: Origin`, and no credentials (bearer tokens, never
 * cookies). Allowed request headers: what MCP clients send on every request (Authorization,
 * Content-Type, MCP-Protocol-Version; 2026-07-28: Mcp-Method and Mcp-Name; DPoP's proof). No Mcp-Session-Id
 * or Last-Event-ID: the endpoint is stateless, issues no session and opens no stream to resume.
 * Exposed: WWW-Authenticate (the challenge a client reads to sign in or step up),
 * Retry-After (of a 429) and DPoP-Nonce (RFC 9449 §9). GET and DELETE are listed because the endpoint answers them (405,
 * `Allow: POST`), which a client can only read once the browser lets it through.
 */
const MCP_CORS: FastifyCorsOptions = {
  credentials: false,
  methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'DPoP', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name'],
  exposedHeaders: ['WWW-Authenticate', 'Retry-After', 'DPoP-Nonce'],
  maxAge: 600,
  // An OPTIONS that is not a preflight (no Origin) is answered like one, as the API's are.
  strictPreflight: false,
};

/**
 * The CORS options of a request to /mcp:
 * - an allowed Origin: the grant above, to that origin;
 * - a refused one: nothing (mcp-http-policy.ts answers it 403, the preflight included);
 * - no Origin (not a browser): the allowed origins, none of which a request naming no origin is
 *   granted, so an OPTIONS is answered in the CORS hook (204 with the methods and headers, no
 *   Access-Control-Allow-Origin) before any body is read, as the API answers one.
 */
export function mcpCorsOptionsFor(origin: string | undefined, origins: McpBrowserOrigins): FastifyCorsOptions {
  if (origin === undefined) return { ...MCP_CORS, origin: [...origins.origins] };
  return origins.allows(origin) ? { ...MCP_CORS, origin } : { origin: false };
}
