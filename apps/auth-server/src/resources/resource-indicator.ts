import { InvalidTargetError } from '@platform/oauth-errors';

/**
 * RFC 8707 resource indicators. The platform has one protected resource, its API, whose
 * canonical URI is the public origin. Clients spell it many ways (the origin, `{base}/mcp`,
 * `{base}/api/v1`, with or without a trailing slash); every URI under the origin is accepted
 * and bound to the canonical one, so one token serves the API and /mcp.
 *
 * RFC 8707 §2: the value "MUST be an absolute URI" and "MUST NOT include a fragment component".
 */
export function resolveResource(apiResource: string, requested: string | undefined): string {
  if (requested === undefined || requested === '') return apiResource;
  let url: URL;
  try {
    url = new URL(requested);
  } catch {
    throw new InvalidTargetError('The resource parameter must be an absolute URI');
  }
  if (requested.includes('#')) throw new InvalidTargetError('The resource parameter must not have a fragment');
  const canonical = new URL(apiResource);
  const base = canonical.pathname.endsWith('/') ? canonical.pathname : `${canonical.pathname}/`;
  const samePlace = url.origin === canonical.origin && `${url.pathname}/`.startsWith(base);
  if (!samePlace || url.username || url.password) {
    throw new InvalidTargetError(`Unknown resource; this server issues tokens for ${apiResource}`);
  }
  return apiResource;
}
