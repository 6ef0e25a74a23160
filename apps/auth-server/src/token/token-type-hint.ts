/** The `token_type_hint` values this server knows (RFC 7009 §2.1, RFC 7662 §2.1). */
export const TOKEN_TYPE_HINTS = ['access_token', 'refresh_token'] as const;
export type TokenTypeHint = (typeof TOKEN_TYPE_HINTS)[number];

/**
 * RFC 7009 §2.1 / RFC 7662 §2.1: the hint is advisory; a server that cannot use it "MUST
 * extend its search across all of its supported token types", so unknown hints are ignored.
 * Read by both the revocation and the introspection endpoint.
 */
export function parseTokenTypeHint(value: string | undefined): TokenTypeHint | undefined {
  return (TOKEN_TYPE_HINTS as readonly (string | undefined)[]).includes(value) ? (value as TokenTypeHint) : undefined;
}
