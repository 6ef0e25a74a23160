import type { FastifyRequest } from 'fastify';
import { parseCookies, type RequestCookies } from '../sessions/cookies';

/** What the browser pages' services read of a request: its cookies and the client's address. */
export interface BrowserRequest {
  cookies: RequestCookies;
  /** The client address as Fastify resolved it (X-Forwarded-For with TRUSTED_PROXIES): the sign-in rate limits'. */
  ip: string;
}

export function browserOf(request: FastifyRequest): BrowserRequest {
  return { cookies: parseCookies(request.headers.cookie), ip: request.ip };
}
