import { AuthorizationCodeGrant } from './authorization-code.grant';
import { RefreshTokenGrant } from './refresh-token.grant';

/**
 * The grant types of the token endpoint, read off its handlers: the token service dispatches to
 * these classes and discovery's grant_types_supported (RFC 8414 §2) is this list, so the two
 * cannot disagree.
 */
export const SUPPORTED_GRANT_TYPES: readonly string[] = [AuthorizationCodeGrant.grantType, RefreshTokenGrant.grantType];
