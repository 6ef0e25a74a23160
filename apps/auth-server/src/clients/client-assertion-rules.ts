/**
 * The rules a private_key_jwt client assertion is held to (RFC 7523 §3, OpenID Connect Core §9),
 * in one place: the verifier applies them and discovery advertises them.
 */

/**
 * Signature algorithms accepted, and advertised as `*_endpoint_auth_signing_alg_values_supported`
 * (RFC 8414 §2): asymmetric only. `none` would accept an unsigned assertion from anyone; HMAC
 * (HS256...) needs a secret shared with this server, which is what private_key_jwt avoids
 * (that is client_secret_jwt, not offered).
 */
export const CLIENT_ASSERTION_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/**
 * Clock difference tolerated between the client and this server, on exp, nbf and iat (RFC 7519
 * §4.1.4: "some small leeway ... to account for clock skew"): 15 s, as Keycloak and
 * node-oidc-provider use.
 */
export const ASSERTION_CLOCK_SKEW_SECONDS = 15;

/**
 * How far in the future an assertion's exp may lie. An assertion is made for one request and
 * sent at once, so a short one loses nothing; the bound limits how long a leaked assertion is
 * worth anything and how long its jti must be remembered (the jti store holds each row until
 * exp). Keycloak refuses more than 60 s by default; 5 minutes leaves room for clients that mint
 * an assertion a little before they send it (and for their retries), while bounding the replay
 * record to minutes. RFC 7523 §3 asks only that the server "MAY reject JWTs with an exp claim
 * value that is unreasonably far in the future".
 */
export const ASSERTION_MAX_LIFETIME_SECONDS = 300;
