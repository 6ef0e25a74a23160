import type { TokenResponse } from '@platform/contracts';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { FormParams } from '../../http/form-params';
import type { TokenRequestOrigin } from '../../security-events/token-issued-event';

/** What a grant knows of the request besides its parameters. */
export interface GrantContext {
  /** The caller's address bucket (@platform/rate-limits addressBucket): IPv4 as is, IPv6 per /64. */
  address: string;
  /** The thumbprint of the request's DPoP key (RFC 9449 §5, checked by TokenEndpointDpop); null without a proof. */
  dpopJkt: string | null;
  /** The request as its security events name it: the client address (request.ip) and the request id. */
  origin: TokenRequestOrigin;
}

/** One grant type of the token endpoint (RFC 6749 §4.1.3, §6). */
export interface GrantHandler {
  readonly grantType: string;
  handle(client: RegisteredClient, params: FormParams, context: GrantContext): Promise<TokenResponse>;
}
