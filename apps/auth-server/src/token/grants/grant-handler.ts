import type { TokenResponse } from '@platform/contracts';
import type { RegisteredClient } from '../../clients/clients.repository';
import type { FormParams } from '../../http/form-params';

/** One grant type of the token endpoint (RFC 6749 §4.1.3, §6). */
export interface GrantHandler {
  readonly grantType: string;
  handle(client: RegisteredClient, params: FormParams): Promise<TokenResponse>;
}

