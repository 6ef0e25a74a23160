/** The OAuth-style error body the gateway answers with when it cannot proxy a request. */
export interface GatewayError {
  statusCode: number;
  body: { error: string; error_description: string };
}

/** Failures that mean nothing is listening (or resolvable) at the upstream's address. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The service took too long: to send its answer's headers, or between two pieces of its body. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

interface ErrorLike {
  statusCode?: number;
  code?: string;
  cause?: unknown;
}

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let current = error as ErrorLike | undefined, depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string') codes.push(current.code);
    current = current.cause as ErrorLike | undefined;
  }
  return codes;
}

/** Maps an error of undici (or one whose `cause` chain holds the socket error) to the answer. */
export function toGatewayError(error: unknown, service: string): GatewayError {
  const statusCode = (error as ErrorLike | undefined)?.statusCode;
  if (statusCode === 413 || codesOf(error).includes('GATEWAY_BODY_TOO_LARGE')) {
    return { statusCode: 413, body: { error: 'invalid_request', error_description: 'The request body is too large' } };
  }
  if (statusCode === 503 || codesOf(error).some((code) => UNREACHABLE_CODES.has(code))) {
    return {
      statusCode: 503,
      body: { error: 'temporarily_unavailable', error_description: `The ${service} is not reachable; try again shortly.` },
    };
  }
  if (statusCode === 504 || codesOf(error).some((code) => TIMEOUT_CODES.has(code))) {
    return {
      statusCode: 504,
      body: { error: 'temporarily_unavailable', error_description: `The ${service} did not answer in time.` },
    };
  }
  return {
    statusCode: 502,
    body: { error: 'server_error', error_description: `The ${service} failed to answer the request.` },
  };
}
