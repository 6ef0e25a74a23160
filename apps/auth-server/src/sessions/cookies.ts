import { parse, serialize } from 'cookie';

/**
 * The two cookies of the sign-in pages (session, CSRF secret), parsed and serialized by the
 * `cookie` package (1.x, CommonJS). @fastify/cookie 11 is not used: it loads cookie 2 with a
 * dynamic import() of an ESM-only build, which Jest cannot run without
 * --experimental-vm-modules and which declares Node >= 22.
 */
export interface CookieOptions {
  path: '/';
  httpOnly: boolean;
  sameSite: 'Lax' | 'Strict';
  secure: boolean;
  /** Seconds; omitted for a browser-session cookie, 0 to delete. */
  maxAge?: number;
}

/** A request's cookies by name, as values: what services read instead of the request. */
export type RequestCookies = Readonly<Record<string, string | undefined>>;

const NO_COOKIES: RequestCookies = Object.freeze(Object.create(null) as Record<string, string>);

/** The Cookie header's cookies (a prototype-less record); of a repeated name, the first one. */
export function parseCookies(header: string | undefined): RequestCookies {
  return header ? parse(header) : NO_COOKIES;
}

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  return serialize(name, value, {
    path: options.path,
    httpOnly: options.httpOnly,
    secure: options.secure,
    sameSite: options.sameSite === 'Lax' ? 'lax' : 'strict',
    ...(options.maxAge !== undefined ? { maxAge: Math.floor(options.maxAge) } : {}),
  });
}

/** The Set-Cookie header value that removes a cookie set with these options. */
export function clearedCookie(name: string, options: CookieOptions): string {
  return serializeCookie(name, '', { ...options, maxAge: 0 });
}
