import { AuthorizationCodeGrant } from './authorization-code.grant';
import { RefreshTokenGrant } from './refresh-token.grant';

/**
 * The grant types of the token endpoint, read off its handlers: the token service dispatches to
 * these classes and discovery's grant_types_supported (RFC 8414 §2) is this list, so the two
 * cannot disagree. Registration (RFC 7591 grant_types), client metadata documents, integrations
 * and the metrics' labels take their list from here too.
 */
export const SUPPORTED_GRANT_TYPES = [AuthorizationCodeGrant.grantType, RefreshTokenGrant.grantType] as const;
export type SupportedGrantType = (typeof SUPPORTED_GRANT_TYPES)[number];
