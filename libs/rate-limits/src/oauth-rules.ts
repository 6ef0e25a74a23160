import type { FastifyRequest } from 'fastify';
import { hash } from 'node:crypto';
import { addressBucket } from './client-ip';
import type { RateLimitRule } from './register-rate-limits';

export interface Limit {
  max: number;
  windowSeconds: number;
}

/**
 * The request limits of an OAuth authorization server's endpoints that are a route's hook: the
 * ones decided before the client is authenticated, so keyed by the caller's address. What is
 * counted per authenticated client, grant, user or failure is the token endpoint's own
 * (the auth server's TokenEndpointLimits, over KeyedLimit).
 */
export interface OAuthRateLimits {
  registrationPerIp: Limit;
  tokenPerIp: Limit;
  introspectionPerCaller: Limit;
}

export interface OAuthPaths {
  registration: string;
  token: string;
  introspection: string;
}

/** Keys never hold the raw value (a client_id can be any string a caller sends): a short hash. */
export const keyDigest = (value: string) => hash('sha256', value, 'base64url').slice(0, 22);

/**
 * The client_id a request names (HTTP Basic or the form), as the server's client
 * authentication reads it; undefined when it names none or cannot be read. Unauthenticated at
 * this point: a key made of it alone could be spent by anyone who knows the client_id.
 */
export type ClientIdOf = (request: FastifyRequest) => string | undefined;

/**
 * The rules of the authorization server, all per caller address before authentication:
 * registration per address; the token endpoint per address (a flood guard loose enough for a
 * hosted agent's egress address); introspection per named caller and address (a caller's
 * budget cannot be spent from another address by naming its client_id). Login attempts have
 * their own backoff (the auth server's LoginThrottle).
 */
export function oauthRateLimitRules(limits: OAuthRateLimits, paths: OAuthPaths, clientIdOf: ClientIdOf): RateLimitRule[] {
  return [
    {
      name: 'register:ip',
      method: 'POST',
      url: paths.registration,
      stage: 'onRequest',
      key: (_request, ip) => addressBucket(ip),
      ...limits.registrationPerIp,
      subject: 'the registration endpoint',
    },
    {
      name: 'token:ip',
      method: 'POST',
      url: paths.token,
      stage: 'onRequest',
      key: (_request, ip) => addressBucket(ip),
      ...limits.tokenPerIp,
      subject: 'the token endpoint',
    },
    {
      name: 'introspect:caller',
      method: 'POST',
      url: paths.introspection,
      stage: 'preHandler',
      // Per caller and its exact address, not its IPv6 /64: each resource-server replica is a
      // caller of its own (replicas of one node or cluster share a /64), so the budget grows with
      // them. Callers without any client_id fail authentication anyway.
      key: (request, ip) => keyDigest(`${clientIdOf(request) ?? ''} ${ip}`),
      ...limits.introspectionPerCaller,
      subject: 'the introspection endpoint',
    },
  ];
}
