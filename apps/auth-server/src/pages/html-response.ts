import type { FastifyReply } from 'fastify';

/**
 * Headers of every response of the sign-in pages, redirects included.
 *
 * - No scripts or fonts at all; inline styles only. No images either, except a school's logo:
 *   a page that shows one allows exactly that image's origin (img-src), nothing else.
 * - form-action: CSP Level 3 applies it to the redirects that follow a form submission, so the
 *   consent form's 303 to the client's loopback redirect URI must be allowed. Registered
 *   redirect URIs are loopback-only (see clients/redirect-uri.ts). Note that CSP's host-source
 *   grammar has no IPv6 literals, so browsers ignore `http://[::1]:*` (harmless, kept for the
 *   ones that accept it).
 * - frame-ancestors + X-Frame-Options: no clickjacking of the Approve button.
 * - no-store: pages carry CSRF tokens and the redirects carry authorization codes.
 * - no-referrer: the authorization request (state, code_challenge) stays out of Referer, also
 *   when the browser fetches a logo from another origin.
 */
export function contentSecurityPolicy(imageSources: readonly string[] = [], formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    ...(imageSources.length > 0 ? [`img-src ${[...new Set(imageSources)].join(' ')}`] : []),
    "style-src 'unsafe-inline'",
    `form-action 'self' http://127.0.0.1:* http://localhost:* http://[::1]:*${formTargets.map((origin) => ` ${origin}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy(),
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** The headers of a page that shows images from `imageSources` (CSP source expressions: origins). */
export function pageSecurityHeaders(imageSources: readonly string[] = [], formTargets: readonly string[] = []): Readonly<Record<string, string>> {
  if (imageSources.length === 0 && formTargets.length === 0) return PAGE_SECURITY_HEADERS;
  return { ...PAGE_SECURITY_HEADERS, 'content-security-policy': contentSecurityPolicy(imageSources, formTargets) };
}

export function sendHtml(
  reply: FastifyReply,
  status: number,
  html: string,
  imageSources: readonly string[] = [],
  /** https origins the page's form may end up at (the consent form's redirect to an https redirect_uri). */
  formTargets: readonly string[] = [],
): void {
  void reply.status(status).headers(pageSecurityHeaders(imageSources, formTargets)).type('text/html; charset=utf-8').send(html);
}

/**
 * 303 See Other: after a POST the browser must follow with a GET, never re-POST the form
 * (RFC 9700 §4.12 warns against 307 for exactly this reason).
 */
export function sendRedirect(reply: FastifyReply, location: string): void {
  void reply.status(303).headers(PAGE_SECURITY_HEADERS).header('location', location).send();
}
