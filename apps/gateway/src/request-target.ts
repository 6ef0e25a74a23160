import type { GatewayError } from './upstream-error';

/**
 * Whether a path means one thing to the router here and another upstream. The upstream URL is
 * built with the WHATWG URL parser, which resolves dot segments (also %2e) and reads `\` as
 * `/`: `/./metrics` would be routed as an unknown path and arrive as `/metrics`. Browsers and
 * HTTP clients never send such paths, so they are refused rather than normalised.
 */
export function isAmbiguousPath(path: string): boolean {
  if (path.includes('\\')) return true;
  return path.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment));
}

/** What the gateway does with a request target that is not origin-form (RFC 9112 §3.2). */
export type NonOriginTarget =
  /** An absolute-form target naming this origin: forwarded as `path`, with `authority` as its Host. */
  | { accepted: true; path: string; authority: string }
  | { accepted: false; refusal: GatewayError };

const refused = (statusCode: number, description: string): NonOriginTarget => ({
  accepted: false,
  refusal: { statusCode, body: { error: 'invalid_request', error_description: description } },
});

/**
 * The answer to CONNECT (authority-form, RFC 9112 §3.2.3): the gateway is no tunnel. 400, as
 * nginx answers it (its parser refuses the form before any configuration applies); not 501,
 * a server error for what is the client's request, nor 405, whose Allow would have to list the
 * methods of a "resource" that is a host and port elsewhere.
 */
export const CONNECT_REFUSAL: GatewayError = {
  statusCode: 400,
  body: { error: 'invalid_request', error_description: 'This origin is no proxy: CONNECT is not served' },
};

/** The default port of each scheme the gateway serves, elided when authorities are compared. */
const DEFAULT_PORTS: Record<string, string> = { http: ':80', https: ':443' };

/**
 * scheme "://" authority [path-abempty] [? query]: the only absolute-URIs with an authority.
 * Each part stops at a character the next one starts with, so a match is one pass, no backtracking.
 */
const ABSOLUTE_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([/?#].*)?$/s;

/**
 * A request target that does not start with `/`, answered as RFC 9112 §3.2 and RFC 9110 §7.4 say:
 *
 * - asterisk-form (`*`): "only used for a server-wide OPTIONS request" (§3.2.4); any other method
 *   with it is malformed, and this origin serves no server-wide OPTIONS: 400 either way, as nginx.
 * - absolute-form: "A server MUST accept the absolute-form in requests" (§3.2.2), and an origin
 *   server "MUST ignore the received Host header field (if any) and instead use the host
 *   information of the request-target" (a proxy likewise MUST generate the Host it forwards from
 *   the target). So a target naming this origin is accepted and forwarded in origin-form with its
 *   authority as the Host. Which origin is this one: PUBLIC_BASE_URL when the gateway is told it;
 *   otherwise the Host the client sent, which it "MUST send ... identical to that authority
 *   component" (§3.2). Another origin is 421 (RFC 9110 §15.5.20: "a target URI that does not
 *   match an origin for which the server has been configured"); a Host that contradicts the
 *   target with no origin configured, another scheme, userinfo (RFC 9110 §4.2.4: "treat its
 *   presence as an error") or an empty host (§4.2.1: "MUST reject it as invalid") are 400.
 *   `OPTIONS http://host` (empty path, no query) is the server-wide OPTIONS in absolute-form
 *   (§3.2.4: a proxy forwards it as `*`): refused as `*` is.
 * - anything else (authority-form outside CONNECT, which Node hands over elsewhere; `a:b`): 400.
 *
 * `publicOrigin` is PUBLIC_BASE_URL's origin (`https://academy.example`), or undefined.
 */
export function nonOriginTarget(method: string | undefined, target: string, host: string | undefined, publicOrigin: string | undefined): NonOriginTarget {
  if (target === '*') {
    return refused(400, method === 'OPTIONS' ? 'This origin serves no server-wide OPTIONS (a request target of *)' : 'A request target of * is only for OPTIONS');
  }
  const absolute = ABSOLUTE_FORM.exec(target);
  if (!absolute) return refused(400, 'The request target must be a path');
  const scheme = (absolute[1] as string).toLowerCase();
  const authority = absolute[2] as string;
  const rest = absolute[3] ?? '';
  if (scheme !== 'http' && scheme !== 'https') return refused(400, 'The request target must be an http or https URI');
  if (authority.includes('@')) return refused(400, 'The request target must not carry userinfo');
  if (authority === '' || authority.startsWith(':')) return refused(400, 'The request target has no host');
  if (method === 'OPTIONS' && rest === '') return refused(400, 'This origin serves no server-wide OPTIONS (an absolute-form target without a path)');
  const canonical = withoutDefaultPort(scheme, authority.toLowerCase());
  if (publicOrigin !== undefined) {
    if (`${scheme}://${canonical}` !== publicOrigin) return refused(421, 'The request target names another origin than this one');
  } else if (host !== undefined && host.toLowerCase() !== authority.toLowerCase()) {
    return refused(400, 'The Host header differs from the authority of the request target');
  }
  // "If the target URI's path component is empty, the client MUST send "/" as the path" (§3.2.1).
  return { accepted: true, path: rest.startsWith('/') ? rest : `/${rest}`, authority };
}

function withoutDefaultPort(scheme: string, authority: string): string {
  const port = DEFAULT_PORTS[scheme] as string;
  return authority.endsWith(port) ? authority.slice(0, -port.length) : authority;
}
