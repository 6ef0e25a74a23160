export { DPOP_SIGNING_ALGORITHMS } from './algorithms';
export {
  DpopProofVerifier,
  accessTokenHash,
  type DpopProofRequest,
  type DpopProofVerifierOptions,
  type DpopReplayGuard,
  type VerifiedDpopProof,
} from './dpop-proof-verifier';
export { DpopNonces } from './dpop-nonces';
export { normalizedHtu } from './htu';
export { isSha256Thumbprint } from './thumbprint';
export { InvalidDpopProofError, UseDpopNonceError } from '@platform/oauth-errors';
