import { Inject, Injectable, Logger } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CATALOG_READER, type CatalogReader } from './catalog-reader';
import { createCatalogServer } from './catalog-tools';
import { MCP_OPTIONS, type McpOptions } from './mcp-options';

/** JSON-RPC 2.0 error codes of the answers this handler writes itself. */
const SERVER_ERROR = -32000;
const INTERNAL_ERROR = -32603;

/**
 * The Streamable HTTP transport in stateless mode: every POST gets a new McpServer and a
 * transport without session ids (`sessionIdGenerator: undefined`), as the SDK's stateless
 * example does, so any instance behind the gateway can answer any request and nothing is
 * kept between requests. Answers are JSON, not SSE: the tools are quick reads with nothing
 * to stream.
 */
@Injectable()
export class McpHttpHandler {
  private readonly logger = new Logger('Mcp');
  private readonly allowedOrigins: ReadonlySet<string>;

  constructor(
    @Inject(CATALOG_READER) private readonly reader: CatalogReader,
    @Inject(MCP_OPTIONS) private readonly options: McpOptions,
  ) {
    this.allowedOrigins = new Set([new URL(options.publicBaseUrl).origin, ...(options.allowedOrigins ?? [])]);
  }

  async post(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // MCP Streamable HTTP, security: "Servers MUST validate the Origin header on all incoming
    // connections to prevent DNS rebinding attacks. If the Origin header is present and
    // invalid, servers MUST respond with HTTP 403 Forbidden."
    const origin = request.headers.origin;
    if (origin !== undefined && !this.allowedOrigins.has(origin)) {
      sendJsonRpcError(reply, 403, SERVER_ERROR, 'Forbidden: this Origin may not call the MCP endpoint');
      return;
    }

    // From here the SDK writes the response on the raw Node objects; Fastify must not.
    reply.hijack();
    try {
      const server = createCatalogServer(this.reader, this.options);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      // Fastify has parsed the JSON body already; the transport takes it as parsedBody.
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(jsonRpcError(INTERNAL_ERROR, 'Internal server error'));
      }
    }
  }

  /** Stateless: no SSE stream to open (GET) and no session to end (DELETE). */
  methodNotAllowed(reply: FastifyReply): void {
    reply.header('allow', 'POST');
    sendJsonRpcError(reply, 405, SERVER_ERROR, 'Method not allowed: this MCP endpoint is stateless; use POST');
  }
}

function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function sendJsonRpcError(reply: FastifyReply, status: number, code: number, message: string): void {
  void reply.status(status).header('content-type', 'application/json').send(jsonRpcError(code, message));
}
