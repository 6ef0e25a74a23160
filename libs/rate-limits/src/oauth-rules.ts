import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
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
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url').slice(0, 22);

/**
 * The client_id a request names: HTTP Basic (RFC 6749 §2.3.1) first, then the form body.
 * Unauthenticated at this point: a limit per client_id holds whoever sends it, which is the
 * point (a flood naming one client costs that client's budget, not the server's).
 */
export function namedClientId(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  const basic = typeof authorization === 'string' ? /^Basic ([A-Za-z0-9+/=]{1,1024})$/i.exec(authorization) : null;
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const separator = decoded.indexOf(':');
    if (separator > 0) {
      try {
        return decodeURIComponent(decoded.slice(0, separator).replace(/\+/g, ' '));
      } catch {
        return decoded.slice(0, separator);
      }
    }
  }
  const body = request.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)['client_id'];
  const single = Array.isArray(value) ? value[0] : value;
  return typeof single === 'string' && single !== '' ? single : undefined;
}

/**
 * The rules of the authorization server: registration per address, the token endpoint per
 * client_id and per address, introspection per caller (its client_id). Login attempts have
 * their own backoff (see the auth server's LoginThrottle).
 */
export function oauthRateLimitRules(limits: OAuthRateLimits, paths: OAuthPaths): RateLimitRule[] {
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
        const clientId = namedClientId(request);
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
      key: (request) => digest(namedClientId(request) ?? ''),
      ...limits.introspectionPerCaller,
      subject: 'the introspection endpoint',
    },
  ];
}
