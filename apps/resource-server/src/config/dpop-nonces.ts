import { DpopNonces } from '@platform/dpop';
import { hkdfSync } from 'node:crypto';

/** As the authorization server's: a nonce is good for 5 to 10 minutes (the current and the previous step). */
const NONCE_STEP_SECONDS = 300;

/**
 * The DPoP nonces of the public origin (RFC 9449 §9), derived from DPOP_NONCE_SECRET exactly as
 * the authorization server derives its own (apps/auth-server/src/token/dpop/token-endpoint-dpop.ts):
 * both servers are one origin behind the gateway and clients keep one nonce per origin
 * (oauth4webapi, the MCP SDK), so a nonce either server issued must be good at the other, or a
 * client would be asked to retry at every switch between the token endpoint and the API.
 */
export function originDpopNonces(secret: string): DpopNonces {
  return new DpopNonces(new Uint8Array(hkdfSync('sha256', secret, 'course-platform auth-server', 'dpop-nonce', 32)), NONCE_STEP_SECONDS);
}
