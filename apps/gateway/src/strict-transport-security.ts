/**
 * The Strict-Transport-Security value the edge sends (RFC 6797): two years, subdomains included.
 * No `preload`: that asks browsers to hard-code the domain, a decision for its operator (the docs
 * say how). tools/containers/src/nginx-conf.ts sends the same value (its spec compares them).
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';

/**
 * The header's value when the public origin is https, else undefined. RFC 6797 §7.2: "An HSTS
 * Host MUST NOT include the STS header field in HTTP responses conveyed over non-secure
 * transport." The gateway itself speaks plain HTTP behind the TLS termination in front of it,
 * so the transport the client sees is the public origin's scheme (PUBLIC_BASE_URL), not the
 * gateway's own socket.
 */
export function strictTransportSecurityFor(publicOrigin: string | undefined): string | undefined {
  return publicOrigin?.startsWith('https:') ? STRICT_TRANSPORT_SECURITY : undefined;
}
