/**
 * The grant types of the token endpoint (RFC 6749 §4.1.3, §6). Each handler names its own from
 * here, the token service refuses to start unless its handlers are exactly these, and everything
 * that lists grant types takes this list: discovery's grant_types_supported (RFC 8414 §2),
 * registration's grant_types (RFC 7591 §2), client metadata documents, integrations and the
 * metrics' labels. A leaf module: importing the handlers here would tie the metrics to the grants.
 */
export const AUTHORIZATION_CODE_GRANT = 'authorization_code';
export const REFRESH_TOKEN_GRANT = 'refresh_token';
export const SUPPORTED_GRANT_TYPES = [AUTHORIZATION_CODE_GRANT, REFRESH_TOKEN_GRANT] as const;
export type SupportedGrantType = (typeof SUPPORTED_GRANT_TYPES)[number];
