import type { RegisteredClient } from '../../clients/clients.repository';

/** The DPoP keys (RFC 7638 thumbprints) new tokens are bound to; null: not bound (Bearer). */
export interface TokenBinding {
  access: string | null;
  refresh: string | null;
}

export const UNBOUND: TokenBinding = { access: null, refresh: null };

/**
 * RFC 9449 §5: with a proof, the access token is bound to its key; so is a public client's refresh
 * token ("refresh tokens issued to public clients MUST be bound"), never a confidential client's
 * ("not bound to the DPoP proof public key because they are already sender-constrained" by the
 * client's authentication).
 */
export function tokenBinding(client: Pick<RegisteredClient, 'tokenEndpointAuthMethod'>, proofJkt: string | null): TokenBinding {
  return { access: proofJkt, refresh: client.tokenEndpointAuthMethod === 'none' ? proofJkt : null };
}
