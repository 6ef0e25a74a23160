import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ANONYMOUS, type AuthPrincipal, bearerTokenOf, TokenValidator } from '@platform/bearer-auth';
import type { Refusal } from '@platform/rate-limits';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { MCP_OPTIONS, mcpAudiences, type McpOptions } from '../mcp/mcp-options';
import { toolNamed } from '../mcp/tools';
import { refusalDescription, ResourceRequestLimits } from './resource-limits';

/** JSON-RPC 2.0 error code of the answers the /mcp endpoint writes itself (as McpHttpHandler's). */
const SERVER_ERROR = -32000;

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The request limits of /mcp (ResourceRequestLimits), as a preHandler hook of its POST route,
 * ahead of McpHttpHandler: a `tools/call` of a tool that writes counts as a write of the
 * token's user; a request without a token counts against its address. The caller is found as
 * the handler finds it (the same TokenValidator and audiences of /mcp; its answer is cached, so
 * the handler's own validation costs nothing more); a request whose token does not validate is
 * left to the handler, which answers it 401 with its challenge. A refusal is HTTP 429 with
 * Retry-After and the JSON-RPC error body the handler writes for the requests it refuses itself
 * (the MCP TypeScript SDK's client reports the status and the message).
 *
 * Call before the routes are registered (Nest registers them in app.init()).
 */
export function registerMcpLimits(app: NestFastifyApplication): void {
  const limits = app.get(ResourceRequestLimits, { strict: false });
  const validator = app.get(TokenValidator, { strict: false });
  const audiences = mcpAudiences(app.get<McpOptions>(MCP_OPTIONS, { strict: false }));
  const hook = mcpLimitHook(limits, async (authorization) => {
    const token = bearerTokenOf(authorization);
    return token === undefined ? ANONYMOUS : validator.validate(token, audiences);
  });
  app.getHttpAdapter().getInstance().addHook('onRoute', (route: RouteOptions) => {
    if (route.url !== RESOURCE_PATHS.mcp || !([] as string[]).concat(route.method).includes('POST')) return;
    const existing = route.preHandler;
    route.preHandler = existing === undefined ? [hook] : [...([] as unknown[]).concat(existing), hook] as RouteOptions['preHandler'];
  });
}

/** `callerOf` rejects when the credentials are not valid: the request then goes on to the handler's own answer. */
export function mcpLimitHook(limits: ResourceRequestLimits, callerOf: (authorization: string | string[] | undefined) => Promise<AuthPrincipal>): Hook {
  return async (request, reply) => {
    let principal: AuthPrincipal;
    try {
      principal = await callerOf(request.headers.authorization);
    } catch {
      return;
    }
    const refusal = await limits.judge(principal, writesIn(request.body), request.ip);
    if (refusal) sendRefusal(reply, refusal, request.body);
  };
}

/** How many JSON-RPC messages of the body call a tool that writes (readOnlyHint false). */
export function writesIn(body: unknown): number {
  let writes = 0;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || typeof params !== 'object' || params === null) continue;
    const tool = toolNamed(params.name);
    if (tool && !tool.annotations.readOnlyHint) writes++;
  }
  return writes;
}

function sendRefusal(reply: FastifyReply, refusal: Refusal, body: unknown): void {
  // JSON-RPC 2.0 §5: the id of the request answered, null when it cannot be told (a batch).
  const id = !Array.isArray(body) && typeof body === 'object' && body !== null && 'id' in body ? (body as { id: unknown }).id : null;
  void reply
    .status(429)
    .header('retry-after', String(refusal.retryAfterSeconds))
    .header('cache-control', 'no-store')
    .header('content-type', 'application/json')
    .send(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: SERVER_ERROR, message: refusalDescription(refusal) },
        id: typeof id === 'string' || typeof id === 'number' ? id : null,
      }),
    );
}
