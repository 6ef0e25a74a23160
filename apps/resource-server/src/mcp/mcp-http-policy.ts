import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { sendOAuthError } from '@platform/oauth-errors';
import { RefusedJsonBodyError } from '@platform/service-runtime';
import type { FastifyError, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { JSON_RPC_ERRORS, sendJsonRpcError } from './json-rpc-errors';
import type { McpBrowserOrigins } from './mcp-origins';

/**
 * What /mcp answers at the HTTP level, before McpHttpHandler:
 * - the Origin check (DNS-rebinding protection), on every method, the CORS preflight included,
 *   before the body is read, the token validated or a limit counted;
 * - refused bodies as JSON-RPC errors, which an MCP client reads, instead of the OAuth body the
 *   rest of the service answers them with.
 * CORS itself is cors/cors-policy.ts (with mcp-cors.ts), registered before this.
 *
 * Call before the routes are registered (Nest registers them in app.init()).
 */
export function registerMcpHttpPolicy(app: NestFastifyApplication, origins: McpBrowserOrigins): void {
  const fastify = app.getHttpAdapter().getInstance();
  // Callback style (no promise per request of the service); a hook that answers does not call done.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!isMcpPath(request.url) || !refusedForeignOrigin(request, reply, origins)) done();
  });
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (route.url === RESOURCE_PATHS.mcp) route.errorHandler = answerMcpError;
  });
}

/** Whether a request target is /mcp (the query string never matters). Every request asks: no allocation. */
export function isMcpPath(url: string): boolean {
  return url.startsWith(RESOURCE_PATHS.mcp) && (url.length === RESOURCE_PATHS.mcp.length || url[RESOURCE_PATHS.mcp.length] === '?');
}

/**
 * MCP Streamable HTTP, security: "Servers MUST validate the Origin header on all incoming
 * connections to prevent DNS rebinding attacks. If the Origin header is present and invalid,
 * servers MUST respond with HTTP 403 Forbidden."
 */
function refusedForeignOrigin(request: FastifyRequest, reply: FastifyReply, origins: McpBrowserOrigins): boolean {
  const origin = request.headers.origin;
  if (origin === undefined || origins.allows(origin)) return false;
  sendJsonRpcError(reply, 403, { code: JSON_RPC_ERRORS.serverError, message: 'Forbidden: this Origin may not call the MCP endpoint' });
  return true;
}

/**
 * The error handler of the /mcp routes. A body the JSON parser refused (syntax, nesting, a lone
 * surrogate: libs/service-runtime json-body.ts), an empty one, one too large or of another
 * media type: a JSON-RPC error with id null (JSON-RPC 2.0 §5: the id could not be read), the
 * codes and statuses the MCP SDK's own transport answers them with (-32700 Parse error, 400;
 * 413 and 415 with -32000). Anything else: the service's OAuth error answer, as on every route.
 */
function answerMcpError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const refusal = bodyRefusal(error);
  if (refusal) sendJsonRpcError(reply, refusal.status, { code: refusal.code, message: refusal.message });
  else sendOAuthError(reply, error);
}

function bodyRefusal(error: FastifyError): { status: number; code: number; message: string } | undefined {
  if (error instanceof RefusedJsonBodyError) return { status: 400, code: JSON_RPC_ERRORS.parseError, message: `Parse error: ${error.description}` };
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: JSON_RPC_ERRORS.parseError, message: 'Parse error: the body is not valid JSON' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: JSON_RPC_ERRORS.parseError, message: 'Parse error: the body is empty' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, code: JSON_RPC_ERRORS.parseError, message: 'Parse error: the body does not match its Content-Length' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: JSON_RPC_ERRORS.serverError, message: 'Payload too large: the request body is over the limit' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: JSON_RPC_ERRORS.serverError, message: 'Unsupported Media Type: Content-Type must be application/json' };
    default:
      return undefined;
  }
}
