import type { FastifyRequest } from 'fastify';
import { parseCookies, type RequestCookies } from '../sessions/cookies';

/** What the browser pages' services read of a request: its cookies, the client's address and its User-Agent. */
export interface BrowserRequest {
  cookies: RequestCookies;
  /** The client address as Fastify resolved it (X-Forwarded-For with TRUSTED_PROXIES): the sign-in rate limits'. */
  ip: string;
  /** Only its browser and system families are kept, with an approval (approving-browser.ts). */
  userAgent?: string;
}

export function browserOf(request: FastifyRequest): BrowserRequest {
  return { cookies: parseCookies(request.headers.cookie), ip: request.ip, userAgent: request.headers['user-agent'] };
}
