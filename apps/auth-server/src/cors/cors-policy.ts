import type { FastifyCorsOptions } from '@fastify/cors';
import { OAUTH_PATHS } from '@platform/contracts';

/**
 * The endpoints a browser-based OAuth client calls from its own origin (the MCP Inspector's web
 * UI, single-page apps): metadata, keys, registration, token, revocation and userinfo. None of
 * them reads a cookie: a client proves itself with its client_id (and secret or code_verifier),
 * a resource owner with a bearer token. So any origin may call them, without credentials: no
 * origin can ride on a signed-in user's session.
 *
 * Never the authorization endpoint nor the sign-in and consent pages: they run in the
 * authorization server's own window and rely on its cookies. Nor introspection: it is for
 * resource servers, which are not browsers.
 */
export const CORS_PATHS: ReadonlySet<string> = new Set([
  OAUTH_PATHS.authorizationServerMetadata,
  OAUTH_PATHS.openIdConfiguration,
  OAUTH_PATHS.jwks,
  OAUTH_PATHS.registration,
  OAUTH_PATHS.token,
  OAUTH_PATHS.revocation,
  OAUTH_PATHS.userinfo,
]);

export const PUBLIC_CORS: FastifyCorsOptions = {
  origin: '*',
  credentials: false,
  methods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  // Authorization: Basic client authentication and bearer tokens; MCP clients send their
  // protocol version on every request, discovery included; DPoP proofs (RFC 9449 §4.1).
  allowedHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version', 'DPoP'],
  // RFC 6750 §3 / RFC 6749 §5.2 challenges, Retry-After of a rate limit, and the DPoP nonce a
  // browser-based client must be able to read to retry with it (RFC 9449 §8).
  exposedHeaders: ['WWW-Authenticate', 'Retry-After', 'DPoP-Nonce'],
  maxAge: 600,
  // An OPTIONS request that is not a preflight gets the JSON error every other request gets.
  strictPreflight: false,
};

/** No CORS headers at all, and no preflight answer. */
const NO_CORS: FastifyCorsOptions = { origin: false };

/** The policy of a request target (the query string never matters). */
export function corsOptionsFor(url: string): FastifyCorsOptions {
  return CORS_PATHS.has(url.split('?', 1)[0]) ? PUBLIC_CORS : NO_CORS;
}
