import type { FastifyReply } from 'fastify';

/**
 * Headers of every response of the sign-in pages, redirects included.
 *
 * - No scripts, images or fonts at all; inline styles only.
 * - form-action: CSP Level 3 applies it to the redirects that follow a form submission, so the
 *   consent form's 303 to the client's loopback redirect URI must be allowed. Registered
 *   redirect URIs are loopback-only (see clients/redirect-uri.ts). Note that CSP's host-source
 *   grammar has no IPv6 literals, so browsers ignore `http://[::1]:*` (harmless, kept for the
 *   ones that accept it).
 * - frame-ancestors + X-Frame-Options: no clickjacking of the Approve button.
 * - no-store: pages carry CSRF tokens and the redirects carry authorization codes.
 * - no-referrer: the authorization request (state, code_challenge) stays out of Referer.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http://127.0.0.1:* http://localhost:* http://[::1]:*; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

export function sendHtml(reply: FastifyReply, status: number, html: string): void {
  void reply.status(status).headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(html);
}

/**
 * 303 See Other: after a POST the browser must follow with a GET, never re-POST the form
 * (RFC 9700 §4.12 warns against 307 for exactly this reason).
 */
export function sendRedirect(reply: FastifyReply, location: string): void {
  void reply.status(303).headers(PAGE_SECURITY_HEADERS).header('location', location).send();
}
