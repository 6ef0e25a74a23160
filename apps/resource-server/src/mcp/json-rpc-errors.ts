import type { FastifyReply } from 'fastify';

/** JSON-RPC 2.0 §5.1 error codes of the answers /mcp writes itself (not the SDK's). */
export const JSON_RPC_ERRORS = {
  /** "Invalid JSON was received by the server. An error occurred on the server while parsing the JSON text." */
  parseError: -32700,
  /** Implementation-defined server error: the endpoint refuses the HTTP request (origin, method, size, authentication). */
  serverError: -32000,
} as const;

export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  error: { code: number; message: string };
  id: string | number | null;
}

/**
 * JSON-RPC 2.0 §5: the id of the request answered; null when it cannot be told (a batch, a
 * notification, a body that did not parse).
 */
export function requestIdOf(body: unknown): string | number | null {
  if (Array.isArray(body) || typeof body !== 'object' || body === null || !('id' in body)) return null;
  const id = (body as { id: unknown }).id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * An HTTP answer of /mcp whose body is a JSON-RPC error response: what an MCP client reads from
 * every refusal the endpoint writes itself (the SDK client shows its message).
 */
export function sendJsonRpcError(
  reply: FastifyReply,
  status: number,
  error: { code: number; message: string },
  options: { id?: string | number | null; headers?: Record<string, string> } = {},
): void {
  const body: JsonRpcErrorBody = { jsonrpc: '2.0', error: { code: error.code, message: error.message }, id: options.id ?? null };
  void reply
    .status(status)
    .headers({ 'cache-control': 'no-store', ...options.headers })
    .header('content-type', 'application/json')
    .send(JSON.stringify(body));
}
