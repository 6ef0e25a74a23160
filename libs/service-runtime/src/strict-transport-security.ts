import type { FastifyInstance } from 'fastify';

/**
 * Two years, every subdomain (RFC 6797 §6.1). No `preload`: asking browsers to hard-code the
 * domain is a decision for whoever owns the registrable domain (the preload list takes only an
 * apex domain and leaving it takes months), not something a service should opt every deployment into;
 * an operator who wants it adds it at the TLS edge.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';

/**
 * HSTS on every answer when the public origin is https. RFC 6797 §7.2: "An HSTS Host MUST NOT
 * include the STS header field in HTTP responses conveyed over non-secure transport." The
 * services sit behind a proxy that terminates TLS, so the transport they see is always plain
 * HTTP: what counts is the scheme of the origin clients use (PUBLIC_BASE_URL), and over an http
 * origin nothing is sent. Set on the reply when the request arrives, so that every answer has it:
 * errors, 404s, CORS preflights, and the answers /mcp writes on the raw response (handOverToRaw
 * copies the reply's headers). Only Fastify's answers to a request it could not route (a path
 * that is not UTF-8) go without: they run no hook.
 */
export function registerStrictTransportSecurity(fastify: FastifyInstance, publicBaseUrl: string | undefined): void {
  if (publicBaseUrl === undefined || new URL(publicBaseUrl).protocol !== 'https:') return;
  fastify.addHook('onRequest', (_request, reply, done) => {
    reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY);
    done();
  });
}
