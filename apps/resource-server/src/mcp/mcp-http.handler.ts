import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  type McpRequestContext,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import { ANONYMOUS, type AuthPrincipal, bearerTokenOf, TokenValidator, withChallenge } from '@platform/bearer-auth';
import { handOverToRaw } from '@platform/observability';
import { toOAuthError } from '@platform/oauth-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createMcpServer } from './mcp-server';
import { MCP_OPTIONS, mcpAudiences, mcpResource, mcpResourceMetadataUrl, type McpOptions } from './mcp-options';
import { SCHOOL_SERVICES, type SchoolServices } from './school-services';
import { scopeChallenge } from './scope-challenge';
import { MCP_TOOLS } from './tools';

/** JSON-RPC 2.0 error code of the answers this handler writes itself. */
const SERVER_ERROR = -32000;

/**
 * /mcp on the MCP TypeScript SDK v2, stateless and JSON-only: any instance answers any request
 * and nothing is kept between requests.
 * - 2026-07-28 (a request carrying its protocol version in `_meta`, no `initialize`;
 *   `server/discover`, `Mcp-Method`/`Mcp-Name` headers, caching hints): the SDK's
 *   `createMcpHandler`, one server instance per request.
 * - 2025-11-25, 2025-06-18, 2025-03-26 (initialize-based): recognised by the SDK's own
 *   `isLegacyRequest` and served by a per-request Streamable HTTP transport without sessions
 *   (`sessionIdGenerator: undefined`) that answers JSON (`enableJsonResponse`), the SDK's
 *   stateless idiom, over the same server factory.
 * Both see the same tools. Authentication happens before: the caller is anonymous or holds a
 * valid token for /mcp, and a call that needs more scopes has been challenged (step-up).
 */
@Injectable()
export class McpHttpHandler implements OnModuleDestroy {
  private readonly logger = new Logger('Mcp');
  private readonly allowedOrigins: ReadonlySet<string>;
  private readonly resourceMetadataUrl: string;
  private readonly audiences: readonly string[];
  private readonly modern: ReturnType<typeof createMcpHandler>;
  private readonly serve: NodeMcpRequestHandler;

  constructor(
    @Inject(SCHOOL_SERVICES) private readonly services: SchoolServices,
    @Inject(MCP_OPTIONS) private readonly options: McpOptions,
    private readonly tokens: TokenValidator,
  ) {
    this.allowedOrigins = new Set([new URL(options.publicBaseUrl).origin, ...(options.allowedOrigins ?? [])]);
    this.resourceMetadataUrl = mcpResourceMetadataUrl(options);
    this.audiences = mcpAudiences(options);
    const onerror = (error: Error) => this.logger.debug(error.message);
    // Response mode `auto`: one JSON body unless a handler sends a message before its result,
    // which no tool here does (`json` would say the same and warn about dropping them).
    this.modern = createMcpHandler((context) => this.server(context), { legacy: 'reject', onerror });
    this.serve = toNodeHandler(
      {
        fetch: async (request: Request, requestOptions?: McpHandlerRequestOptions) =>
          (await isLegacyRequest(request, requestOptions?.parsedBody))
            ? this.legacy(request, requestOptions)
            : this.modern.fetch(request, requestOptions),
      },
      { onerror: (error) => this.logger.error(error.stack ?? error.message) },
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.modern.close();
  }

  async post(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // MCP Streamable HTTP, security: "Servers MUST validate the Origin header on all incoming
    // connections to prevent DNS rebinding attacks. If the Origin header is present and
    // invalid, servers MUST respond with HTTP 403 Forbidden."
    const origin = request.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin)) {
      sendJsonRpcError(reply, 403, 'Forbidden: this Origin may not call the MCP endpoint');
      return;
    }
    const caller = await this.authenticate(request.headers.authorization);
    const challenge = scopeChallenge(request.body, caller.principal, this.resourceMetadataUrl);
    if (challenge) throw challenge;

    // From here the SDK writes the response on the raw Node objects; Fastify must not.
    handOverToRaw(reply);
    (request.raw as { auth?: AuthInfo }).auth = caller.authInfo;
    await this.serve(request.raw, reply.raw, request.body);
  }

  /** Stateless: no SSE stream to open (GET) and no session to end (DELETE). */
  methodNotAllowed(reply: FastifyReply): void {
    reply.header('allow', 'POST');
    sendJsonRpcError(reply, 405, 'Method not allowed: this MCP endpoint is stateless; use POST');
  }

  /**
   * No Authorization header: anonymous (the public tools; a private one is challenged). A
   * token must be valid and for /mcp: MCP authorization, "Invalid or expired tokens MUST
   * receive a HTTP 401 response", with the RFC 9728 metadata URL of /mcp in the challenge.
   */
  private async authenticate(authorization: string | string[] | undefined): Promise<{ principal: AuthPrincipal; authInfo?: AuthInfo }> {
    try {
      const token = bearerTokenOf(authorization);
      if (token === undefined) return { principal: ANONYMOUS };
      const principal = await this.tokens.validate(token, this.audiences);
      return {
        principal,
        authInfo: {
          token,
          clientId: principal.clientId,
          scopes: [...principal.scopes],
          expiresAt: principal.expiresAt,
          resource: new URL(mcpResource(this.options)),
          resourceMetadataUrl: this.resourceMetadataUrl,
          extra: { principal },
        },
      };
    } catch (error) {
      throw withChallenge(toOAuthError(error), [], this.resourceMetadataUrl);
    }
  }

  /** The server for one request: every tool, working for the request's caller. */
  private server(context: Pick<McpRequestContext, 'authInfo'>): McpServer {
    const principal = (context.authInfo?.extra?.['principal'] as AuthPrincipal | undefined) ?? ANONYMOUS;
    return createMcpServer(
      MCP_TOOLS,
      { principal, services: this.services, defaultSchoolId: this.options.defaultSchoolId },
      this.options.publicBaseUrl,
    );
  }

  private async legacy(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    const server = this.server({ authInfo: options?.authInfo });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, options);
    } finally {
      void server.close();
    }
  }
}

function sendJsonRpcError(reply: FastifyReply, status: number, message: string): void {
  void reply
    .status(status)
    .header('content-type', 'application/json')
    .send(JSON.stringify({ jsonrpc: '2.0', error: { code: SERVER_ERROR, message }, id: null }));
}
