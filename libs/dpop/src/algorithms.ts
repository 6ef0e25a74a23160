/**
 * The JWS algorithms accepted for DPoP proofs: asymmetric only. RFC 9449 §4.3 check 5: the `alg`
 * "is not none", "is supported by the application" and "is not a symmetric algorithm (MAC)", so
 * a key the server could also hold never signs a proof. Ed25519 is the fully-specified name of
 * EdDSA over Ed25519 (RFC 9864), which oauth4webapi signs with.
 */
export const DPOP_SIGNING_ALGORITHMS: readonly string[] = Object.freeze([
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'EdDSA',
  'Ed25519',
]);
