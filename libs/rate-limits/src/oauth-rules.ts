import type { FastifyRequest } from 'fastify';
import { hash } from 'node:crypto';
import { addressBucket } from './client-ip';
import type { RateLimitRule } from './register-rate-limits';

export interface Limit {
  max: number;
  windowSeconds: number;
}

/** The request limits of an OAuth authorization server's endpoints. */
export interface OAuthRateLimits {
  registrationPerIp: Limit;
  tokenPerClient: Limit;
  tokenPerIp: Limit;
  introspectionPerCaller: Limit;
}

export interface OAuthPaths {
  registration: string;
  token: string;
  introspection: string;
}

/** Keys never hold the raw value (a client_id can be any string a caller sends): a short hash. */
const digest = (value: string) => hash('sha256', value, 'base64url').slice(0, 22);

/**
 * The client_id a request names (HTTP Basic or the form), as the server's client
 * authentication reads it; undefined when it names none or cannot be read. Unauthenticated at
 * this point, which is the point: a flood naming one client costs that client's budget.
 */
export type ClientIdOf = (request: FastifyRequest) => string | undefined;

/**
 * The rules of the authorization server: registration per address, the token endpoint per
 * client_id and per address, introspection per caller (its client_id). Login attempts have
 * their own backoff (see the auth server's LoginThrottle).
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
      name: 'token:client',
      method: 'POST',
      url: paths.token,
      stage: 'preHandler',
      key: (request) => {
        const clientId = clientIdOf(request);
        return clientId === undefined ? undefined : digest(clientId);
      },
      ...limits.tokenPerClient,
      subject: 'the token endpoint for this client',
    },
    {
      name: 'introspect:caller',
      method: 'POST',
      url: paths.introspection,
      stage: 'preHandler',
      // Callers without any client_id fail authentication anyway; they share one budget.
      key: (request) => digest(clientIdOf(request) ?? ''),
      ...limits.introspectionPerCaller,
      subject: 'the introspection endpoint',
    },
  ];
}
