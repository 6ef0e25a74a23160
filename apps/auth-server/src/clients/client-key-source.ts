import type { JSONWebKeySet } from 'jose';

/**
 * Where a private_key_jwt client's public keys are (RFC 7591 §2): in its metadata (`jwks`, a JWK
 * Set checked by public-key-set.ts) or at an https URL it serves (`jwks_uri`). Never both.
 */
export type ClientKeySource = { jwks: JSONWebKeySet } | { jwksUri: string };
