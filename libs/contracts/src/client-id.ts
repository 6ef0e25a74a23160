/**
 * The longest client_id this platform can know. Registered and integration client ids are
 * short (22 base64url characters when registered); the longest are client_id URLs of Client ID
 * Metadata Documents, which the authorization server accepts up to this length.
 */
export const MAX_CLIENT_ID_LENGTH = 255;

/** RFC 6749 Appendix A.1: `client-id = *VSCHAR` (VSCHAR = %x20-7E), here 1 to MAX_CLIENT_ID_LENGTH of them. */
const CLIENT_ID_SYNTAX = new RegExp(`^[\\x20-\\x7e]{1,${MAX_CLIENT_ID_LENGTH}}$`);

/**
 * Whether a string can be a client_id of this platform. Anything else cannot exist, so it is
 * answered as an unknown client without being looked up.
 */
export function isClientIdSyntax(value: string): boolean {
  return CLIENT_ID_SYNTAX.test(value);
}
