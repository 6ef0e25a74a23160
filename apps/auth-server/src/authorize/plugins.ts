import { OAUTH_PATHS } from '@platform/contracts';
import type { FastifyInstance } from 'fastify';
import { PAGE_SECURITY_HEADERS } from '../pages/html-response';
import { CONNECTED_APPS_PATH } from '../pages/page-paths';

/**
 * What the sign-in pages need from Fastify; call before app.init().
 *
 * - Cookies: no plugin. sessions/cookies.ts reads the Cookie header and writes Set-Cookie
 *   itself (@fastify/cookie 11 cannot load under Jest; see there). Do not register
 *   @fastify/cookie for these routes either: its onSend hook would own Set-Cookie.
 * - CSRF: synchronizer tokens in pages/csrf.ts (CsrfTokens), no plugin; see there why.
 * - Form bodies: NOT registered here. The service runtime (libs/service-runtime) registers the
 *   application/x-www-form-urlencoded and JSON parsers of both services, bounded (INPUT_LIMITS),
 *   in place of Nest's: repeated keys become arrays, which the authorization endpoint needs to
 *   refuse repeated parameters. Registering @fastify/formbody as well would fail with
 *   FST_ERR_CTP_ALREADY_PRESENT.
 * - HSTS: NOT here either; the service runtime sends it on every answer of an https origin,
 *   pages included.
 * - This hook: the pages' security headers also on responses that never reach the
 *   controller (a form body the parser refuses, an unsupported content type, a wrong method),
 *   which the global Fastify error handler answers.
 */
export async function registerAuthorizePlugins(fastify: FastifyInstance): Promise<void> {
  // A callback hook (it runs on every request of the service: no promise each).
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const path = request.url.split('?', 1)[0];
    const isPage = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
    if (isPage(OAUTH_PATHS.authorization) || isPage(CONNECTED_APPS_PATH)) {
      for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) {
        if (!reply.hasHeader(name)) reply.header(name, value);
      }
    }
    done(null, payload);
  });
}
