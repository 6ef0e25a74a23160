/** RFC 6749 §5.1 successful token response, plus the OpenID Connect id_token. */
export interface TokenResponse {
  access_token: string;
  /** RFC 9449 §5: "DPoP" for an access token bound to the client's proof key. */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  /**
   * RFC 6749 §5.1: OPTIONAL. Issued only to clients registered for the refresh_token grant;
   * a refresh answers with the rotated one.
   */
  refresh_token?: string;
  scope: string;
  id_token?: string;
}

/** RFC 7662 §2.2 introspection response. */
export type IntrospectionResponse = ActiveIntrospectionResponse | { active: false };

export interface ActiveIntrospectionResponse {
  active: true;
  scope: string;
  client_id: string;
  sub: string;
  /** The resource (RFC 8707) the token is bound to. */
  aud: string;
  iss: string;
  exp: number;
  iat: number;
  /**
   * RFC 7662 §2.2 `token_type`: "Bearer" for an access token. A client introspecting one of its
   * refresh tokens gets "refresh_token" (the token type hint's name for it): it is not a token
   * a resource server may accept. RFC 9449 §6.2: "DPoP" for an access token bound to a key.
   */
  token_type: 'Bearer' | 'DPoP' | 'refresh_token';
  /** RFC 9449 §6.2 / RFC 7800 §3.1: the key a DPoP-bound token is bound to, its RFC 7638 SHA-256 thumbprint. */
  cnf?: { jkt: string };
  /** The school the token acts for (tenant). */
  school_id: string;
}

/** OpenID Connect Core §5.3.2 userinfo response. */
export interface UserInfoResponse {
  sub: string;
  name?: string;
  email?: string;
  email_verified?: boolean;
  school_id: string;
  role: string;
}
