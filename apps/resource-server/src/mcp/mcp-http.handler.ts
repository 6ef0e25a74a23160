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
import {
  ANONYMOUS,
  type AuthPrincipal,
  type ChallengeContext,
  MissingTokenError,
  type PresentedToken,
  presentedTokenOf,
  TokenAuthenticator,
  type TokenScheme,
  withChallenge,
} from '@platform/bearer-auth';
import { handOverToRaw } from '@platform/logging';
import { toOAuthError } from '@platform/oauth-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_RPC_ERRORS, requestIdOf, sendJsonRpcError } from './json-rpc-errors';
import { createMcpServer } from './mcp-server';
import { MCP_OPTIONS, mcpAudiences, mcpResource, mcpResourceMetadataUrl, type McpOptions } from './mcp-options';
import { SCHOOL_SERVICES, type SchoolServices } from './school-services';
import { scopeChallenge } from './scope-challenge';
import { MCP_TOOLS } from './tools';

/** Who calls: the principal the tools work for, what the SDK is told about the token, and the scheme it came with. */
interface Caller {
  principal: AuthPrincipal;
  authInfo?: AuthInfo;
  scheme?: TokenScheme;
}

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
 * valid token for /mcp, and a call that needs more scopes has been challenged (step-up). What
 * happens before this handler, at the HTTP level (the Origin check, CORS, refused bodies), is
 * mcp-http-policy.ts.
 */
@Injectable()
export class McpHttpHandler implements OnModuleDestroy {
  private readonly logger = new Logger('Mcp');
  private readonly resourceMetadataUrl: string;
  /** /mcp's metadata URL and the DPoP algorithms, named in its challenges. */
  private readonly challengeContext: ChallengeContext;
  private readonly audiences: readonly string[];
  private readonly modern: ReturnType<typeof createMcpHandler>;
  private readonly serve: NodeMcpRequestHandler;

  constructor(
    @Inject(SCHOOL_SERVICES) private readonly services: SchoolServices,
    @Inject(MCP_OPTIONS) private readonly options: McpOptions,
    private readonly tokens: TokenAuthenticator,
  ) {
    this.resourceMetadataUrl = mcpResourceMetadataUrl(options);
    this.challengeContext = { ...tokens.challengeContext, resourceMetadataUrl: this.resourceMetadataUrl };
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
    let caller: Caller;
    try {
      caller = await this.authenticate(request);
      const challenge = scopeChallenge(request.body, caller.principal, this.challengeContext, caller.scheme);
      if (challenge) throw challenge;
    } catch (error) {
      if (!(error instanceof MissingTokenError)) throw error;
      // RFC 6750 §3.1: a request that lacks authentication information (none, or another
      // scheme) gets a challenge that "SHOULD NOT include an error code or other error
      // information", so no OAuth error body either: a JSON-RPC error the MCP client can show,
      // beside the WWW-Authenticate header it acts on. A bad token (invalid_token) and a missing
      // scope (insufficient_scope) keep their RFC 6750 codes and the OAuth body, as the MCP
      // SDK's own bearer authentication answers them.
      sendJsonRpcError(reply, 401, { code: JSON_RPC_ERRORS.serverError, message: error.description }, { id: requestIdOf(request.body), headers: error.headers });
      return;
    }

    // From here the SDK writes the response on the raw Node objects; Fastify must not.
    handOverToRaw(reply);
    (request.raw as { auth?: AuthInfo }).auth = caller.authInfo;
    await this.serve(request.raw, reply.raw, request.body);
  }

  /** Stateless: no SSE stream to open (GET) and no session to end (DELETE). */
  methodNotAllowed(reply: FastifyReply): void {
    sendJsonRpcError(
      reply,
      405,
      { code: JSON_RPC_ERRORS.serverError, message: 'Method not allowed: this MCP endpoint is stateless; use POST' },
      { headers: { allow: 'POST' } },
    );
  }

  /**
   * No Authorization header: anonymous (the public tools; a private one is challenged). A
   * token must be valid and for /mcp: MCP authorization, "Invalid or expired tokens MUST
   * receive a HTTP 401 response", with the RFC 9728 metadata URL of /mcp in the challenge. A
   * DPoP-bound token comes with the DPoP scheme and a proof for this request (RFC 9449 §7), as
   * at the API (TokenAuthenticator holds the rules of both schemes).
   */
  private async authenticate(request: FastifyRequest): Promise<Caller> {
    let presented: PresentedToken | undefined;
    try {
      presented = presentedTokenOf(request.headers.authorization);
      if (presented === undefined) return { principal: ANONYMOUS };
      const { token } = presented;
      const principal = await this.tokens.authenticate(presented, request, this.audiences);
      return {
        principal,
        scheme: presented.scheme,
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
      throw withChallenge(toOAuthError(error), [], this.challengeContext, presented?.scheme);
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
