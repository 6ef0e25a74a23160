import { z } from 'zod';

/**
 * The resource server's credentials at the authorization server's introspection endpoint
 * (RFC 7662 §2.1 "the protected resource MUST authenticate"): both services read the same two
 * variables, so both validate them by these rules.
 */
export const introspectionClientEnv = {
  /** The client_id the resource server authenticates with at the introspection endpoint. */
  INTROSPECTION_CLIENT_ID: z.string().min(1).default('resource-server'),
  /** Its secret: both services are given the same value. */
  INTROSPECTION_CLIENT_SECRET: z.string().min(16),
};

/** In production the shared secret is long enough not to be guessed. */
export const PRODUCTION_INTROSPECTION_SECRET_LENGTH = 32;

/** What is wrong with a production introspection secret, naming the variable; undefined when nothing. */
export function productionIntrospectionSecretProblem(secret: string): string | undefined {
  return secret.length < PRODUCTION_INTROSPECTION_SECRET_LENGTH
    ? `INTROSPECTION_CLIENT_SECRET: production needs at least ${PRODUCTION_INTROSPECTION_SECRET_LENGTH} characters`
    : undefined;
}
