import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_UPLOAD_MAX_BYTES,
  GATEWAY_PATHS,
  ROUTES,
  SERVICE_BODY_LIMITS,
  SERVICE_PROBES,
  SERVICES,
  serviceFor,
  serviceProbeFor,
  type ServiceName,
  UPLOAD_PATH,
} from '@platform/route-table';
import { parse } from 'yaml';
import { parseStages } from './dockerfile-rules';
import Fastify from 'fastify';
import { freePort } from '../../../tools/test-support/free-port';
import { COMPOSE_NGINX_OPTIONS, type NginxConfOptions, NGINX_CONF_PATH, renderNginxConf, STRICT_TRANSPORT_SECURITY, UPSTREAM_KEEPALIVE } from './nginx-conf';

const root = join(__dirname, '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** What one `location` of the committed file does. */
interface Location {
  match: '=' | '^~';
  path: string;
  body: string;
}

/** The server's locations (one level of braces inside each; `if (...) { ... }` included). */
function locationsOf(conf: string): Location[] {
  const locations: Location[] = [];
  // Quoted bodies (JSON answers) hold braces of their own: out of the way first.
  const unquoted = conf.replace(/'[^'\n]*'/g, "''");
  for (const match of unquoted.matchAll(/^\s*location (=|\^~) (\S+) \{((?:[^{}]|\{[^{}]*\})*)\}/gm)) {
    locations.push({ match: match[1] as '=' | '^~', path: match[2] as string, body: match[3] as string });
  }
  return locations;
}

/** nginx's choice for a path: the exact location, else the longest `^~` prefix. */
function locationFor(locations: Location[], path: string): Location | undefined {
  const exact = locations.find((location) => location.match === '=' && location.path === path);
  if (exact) return exact;
  return locations
    .filter((location) => location.match === '^~' && path.startsWith(location.path))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

type Outcome = { kind: 'proxy'; service: ServiceName; uri?: string } | { kind: 'answer'; status: number };

/** The `upstream` groups of a configuration: name and body. */
function upstreamsOf(conf: string): Map<string, string> {
  return new Map([...conf.matchAll(/^\s*upstream (\S+) \{([^{}]*)\}/gm)].map((match) => [match[1] as string, match[2] as string]));
}

function outcomeOf(location: Location | undefined, conf: string): Outcome | undefined {
  if (!location) return undefined;
  const proxy = /proxy_pass http:\/\/([\w.-]+)(\S*);/.exec(location.body);
  if (proxy) {
    const group = upstreamsOf(conf).get(proxy[1] as string);
    if (group === undefined) throw new Error(`proxy_pass to ${proxy[1]}, which is no upstream group`);
    const service = SERVICES.find((name) => group.includes(`server ${COMPOSE_NGINX_OPTIONS.upstreams[name]} `));
    if (!service) throw new Error(`upstream ${proxy[1]} reaches no service`);
    // A probe: its path alone (`?`: no query string), as the gateway fetches it.
    const rewritten = /\brewrite \^ (\S+)\? break;/.exec(location.body.replace(/if \(.*?\) \{[^}]*\}/g, ''));
    const uri = rewritten?.[1] ?? proxy[2];
    return { kind: 'proxy', service, ...(uri ? { uri } : {}) };
  }
  const answer = /\breturn (\d{3})/.exec(location.body.replace(/if \(.*?\) \{[^}]*\}/g, ''));
  return answer ? { kind: 'answer', status: Number(answer[1]) } : undefined;
}

/** What apps/gateway does with a path (route-table + probes.ts). */
function gatewayOutcome(path: string): Outcome {
  if (path === GATEWAY_PATHS.liveness || path === GATEWAY_PATHS.readiness) return { kind: 'answer', status: 200 };
  if (path === GATEWAY_PATHS.metrics) return { kind: 'answer', status: 404 };
  if (path === GATEWAY_PATHS.internal || path.startsWith(`${GATEWAY_PATHS.internal}/`)) return { kind: 'answer', status: 404 };
  const probe = serviceProbeFor(path);
  if (probe) return { kind: 'proxy', service: probe.service, uri: probe.path };
  if (SERVICES.some((service) => path === `/${service}` || path.startsWith(`/${service}/`))) return { kind: 'answer', status: 404 };
  return { kind: 'proxy', service: serviceFor(path) };
}

/** Paths around every boundary the table draws. */
function samplePaths(): string[] {
  const paths = new Set(['/', '/x', '/api/v1/courses', '/api/v1/courses/42', '/mcp', UPLOAD_PATH, `${UPLOAD_PATH}/x`, '/.well-known/oauth-protected-resource', '/internal/security-events', '/api/v1/internal']);
  for (const route of ROUTES) for (const suffix of ['', '/', '/x', 'x', '/x/y']) paths.add(`${route.path}${suffix}`);
  for (const path of Object.values(GATEWAY_PATHS)) for (const suffix of ['', '/', 'x']) paths.add(`${path}${suffix}`);
  for (const service of SERVICES) {
    for (const suffix of ['', '/', '/metrics', ...SERVICE_PROBES, ...SERVICE_PROBES.map((probe) => `${probe}/x`)]) paths.add(`/${service}${suffix}`);
  }
  return [...paths];
}

describe(`the nginx configuration (${NGINX_CONF_PATH})`, () => {
  const committed = read(NGINX_CONF_PATH);
  const locations = locationsOf(committed);

  it('is what tools/containers/nginx-conf.cjs renders from libs/route-table today (not stale)', () => {
    // If this fails after a change to libs/route-table: node tools/containers/nginx-conf.cjs
    expect(committed).toEqual(renderNginxConf());
  });

  it('sends every path where apps/gateway sends it', () => {
    const disagreements = samplePaths()
      .map((path) => ({ path, nginx: outcomeOf(locationFor(locations, path), committed), gateway: gatewayOutcome(path) }))
      .filter(({ nginx, gateway }) => JSON.stringify(nginx) !== JSON.stringify(gateway));
    expect(disagreements).toEqual([]);
  });

  it("holds each service's bodies to its limit, and only the upload path to the upload limit", () => {
    for (const location of locations) {
      const outcome = outcomeOf(location, committed);
      if (outcome?.kind !== 'proxy' || outcome.uri) continue;
      const expected = location.path === UPLOAD_PATH ? DEFAULT_UPLOAD_MAX_BYTES : SERVICE_BODY_LIMITS[outcome.service];
      const declared = /client_max_body_size (\d+)([km]?);/.exec(location.body);
      expect({ path: location.path, declared: declared ? Number(declared[1]) * ({ k: 1024, m: 1024 * 1024 }[declared[2] as 'k' | 'm'] ?? 1) : undefined }).toEqual({ path: location.path, declared: expected });
    }
  });

  it('holds a body of any other media type on the upload path to the resource server\'s limit, as the gateway does', () => {
    const upload = locations.find((location) => location.match === '=' && location.path === UPLOAD_PATH);
    const rewrite = /if \(\$platform_upload_media = 0\) \{ rewrite \^ (\S+) last; \}/.exec(upload?.body ?? '');
    expect(rewrite).not.toBeNull();
    const other = locations.find((location) => location.match === '=' && location.path === rewrite?.[1]);
    expect(other?.body).toContain('internal;');
    expect(other?.body).toContain(`client_max_body_size ${SERVICE_BODY_LIMITS['resource-server'] / (1024 * 1024)}m;`);
    expect(outcomeOf(other, committed)).toEqual({ kind: 'proxy', service: 'resource-server', uri: '$request_uri' });
    const media = /map \$content_type \$platform_upload_media \{\s*"~\*([^"]+)" 1;/.exec(committed);
    const pattern = new RegExp(media?.[1] ?? '^$', 'i');
    for (const type of ['image/png', 'text/plain; charset=utf-8', 'Application/PDF', 'application/pdf;x=1']) expect({ type, upload: pattern.test(type) }).toEqual({ type, upload: true });
    for (const type of ['application/json', 'application/pdfx', 'multipart/form-data; boundary=x', '']) expect({ type, upload: pattern.test(type) }).toEqual({ type, upload: false });
  });

  it('replaces X-Forwarded-For with the peer address (never appends), sets the other forwarded headers and a request id', () => {
    expect(committed).toMatch(/^\s*proxy_set_header X-Forwarded-For \$remote_addr;$/m);
    expect(committed).not.toMatch(/proxy_add_x_forwarded_for/);
    expect(committed).not.toMatch(/real_ip_header/); // compose: nginx is the edge
    expect(committed).toMatch(/^\s*proxy_set_header X-Forwarded-Proto \$scheme;$/m);
    // The Host the client sent; for an absolute-form target, its authority (RFC 9112 §3.2.2).
    expect(committed).toMatch(/^\s*proxy_set_header X-Forwarded-Host \$platform_forwarded_host;$/m);
    expect(committed).toContain('map $platform_absolute_target $platform_forwarded_host {');
    expect(committed).toMatch(/^\s*proxy_set_header X-Request-Id \$platform_request_id;$/m);
    expect(committed).toMatch(/^\s*add_header X-Request-Id \$platform_request_id always;$/m);
  });

  it('refuses dot segments and backslashes in every public location, as the gateway does', () => {
    const guard = /map \$request_uri \$platform_ambiguous_target \{\s*"~\*([^"]+)" 1;/.exec(committed);
    expect(guard).not.toBeNull();
    const pattern = new RegExp((guard?.[1] as string).replace(/\\x5c/g, '\\\\'), 'i');
    for (const target of ['/./metrics', '/oauth/../metrics', '/%2e%2E/x', '/a\\b', '/x/..?y']) expect({ target, refused: pattern.test(target) }).toEqual({ target, refused: true });
    for (const target of ['/api/v1/courses?limit=5', '/a/x?q=/../', '/.well-known/jwks.json', '/a/...']) expect({ target, refused: pattern.test(target) }).toEqual({ target, refused: false });
    const unguarded = locations.filter((location) => !location.body.includes('internal;') && !location.body.includes('if ($platform_ambiguous_target) { return 400; }'));
    expect(unguarded.map((location) => location.path)).toEqual([]);
  });

  it('refuses absolute-form targets of another origin, or malformed, in every public location, as the gateway does', () => {
    const guard = ['if ($platform_target_refusal = 400) { return 400; }', 'if ($platform_target_refusal = 421) { return 421; }'];
    const unguarded = locations.filter((location) => !location.body.includes('internal;') && !guard.every((line) => location.body.includes(line)));
    expect(unguarded.map((location) => location.path)).toEqual([]);
    // The JSON answer of a 421, wherever nginx answers with error pages.
    for (const location of locations.filter((candidate) => candidate.body.includes('error_page 400'))) {
      expect({ path: location.path, misdirected: location.body.includes('error_page 421 /.platform-errors/misdirected;') }).toEqual({ path: location.path, misdirected: true });
    }
  });

  it('sends no Strict-Transport-Security: the committed file has no public origin (compose gives it in .env)', () => {
    expect(committed).not.toMatch(/strict-transport-security/i);
  });

  it('logs one JSON line per request (probes aside), written in batches at least every second', () => {
    expect(committed).toContain('access_log /dev/stdout platform buffer=32k flush=1s if=$platform_logged;');
    expect(committed).toMatch(/log_format platform escape=json '\{"time":"\$time_iso8601","reqId":"\$platform_request_id"/);
  });

  it('keeps connections to each service alive, idle for less time than the service keeps them', () => {
    const upstreams = upstreamsOf(committed);
    expect([...upstreams.keys()]).toEqual([...SERVICES]);
    for (const service of SERVICES) {
      expect({ service, group: upstreams.get(service)?.trim().split(/\s*\n\s*/) }).toEqual({
        service,
        group: [
          // Resolved once, at start: the stand-in's nginx 1.22 has no `resolve`. max_fails=0: a
          // down service is never taken out of its group, every request tries it (the JSON 503).
          `server ${COMPOSE_NGINX_OPTIONS.upstreams[service]} max_fails=0;`,
          `keepalive ${UPSTREAM_KEEPALIVE.idleConnections};`,
          `keepalive_timeout ${UPSTREAM_KEEPALIVE.idleTimeoutSeconds}s;`,
          `keepalive_requests ${UPSTREAM_KEEPALIVE.requestsPerConnection};`,
        ],
      });
    }
    // Reuse needs HTTP/1.1 upstream and no `Connection: close` from nginx; a location with a
    // proxy_set_header of its own would drop the server's (they are inherited only when a level sets none).
    expect(committed).toMatch(/^\s*proxy_http_version 1\.1;$/m);
    expect(committed).toMatch(/^\s*proxy_set_header Connection "";$/m);
    expect(locations.filter((location) => /proxy_set_header|proxy_http_version/.test(location.body)).map((location) => location.path)).toEqual([]);
    // No name is looked up per request (a variable proxy_pass to a host that is no group, a resolver).
    expect(committed).not.toMatch(/\bresolver\b/);
    for (const [, target] of committed.matchAll(/proxy_pass http:\/\/([\w.-]+)/g)) expect(upstreams.has(target as string)).toBe(true);
    // The services keep an idle connection for Fastify's keepAliveTimeout (libs/service-runtime sets none):
    // nginx must let go first, or it may send a request on a connection being closed.
    expect(read('libs/service-runtime/src/service-app.ts')).not.toMatch(/keepAliveTimeout/);
    expect(UPSTREAM_KEEPALIVE.idleTimeoutSeconds * 1000).toBeLessThan(Fastify().initialConfig.keepAliveTimeout as number);
  });

  it('answers 503 (not reachable) when the connection to a service fails or never completes, 504 when it does not answer', () => {
    expect(committed).toMatch(/^\s*proxy_connect_timeout 5s;$/m);
    const map = /map \$upstream_connect_time \$platform_upstream_unreached \{\s*"~([^"]+)" 1;\s*default 0;/.exec(committed);
    const never = new RegExp(map?.[1] ?? '^$');
    // One value per attempt; the last one counts ("-": that attempt never connected).
    for (const value of ['-', '0.001, -']) expect({ value, unreached: never.test(value) }).toEqual({ value, unreached: true });
    for (const value of ['0.000', '-, 0.001', '']) expect({ value, unreached: never.test(value) }).toEqual({ value, unreached: false });
    for (const service of SERVICES) {
      const proxied = locations.filter((location) => {
        const outcome = outcomeOf(location, committed);
        return outcome?.kind === 'proxy' && outcome.service === service;
      });
      expect(proxied.length).toBeGreaterThan(0);
      for (const location of proxied) {
        expect(location.body).toContain(`error_page 502 503 =503 /.platform-errors/${service}-unreachable;`);
        // `=`: the status is the error location's own (its 503 for a connection never made).
        expect(location.body).toContain(`error_page 504 = /.platform-errors/${service}-timeout;`);
      }
      const opening = `location = /.platform-errors/${service}-timeout {`;
      const timeout = committed.slice(committed.indexOf(opening), committed.indexOf('\n    }', committed.indexOf(opening)));
      const unreachable = JSON.stringify({ error: 'temporarily_unavailable', error_description: `The ${service} is not reachable; try again shortly.` });
      const late = JSON.stringify({ error: 'temporarily_unavailable', error_description: `The ${service} did not answer in time.` });
      expect(timeout).toContain(`if ($platform_upstream_unreached) { return 503 '${unreachable}'; }\n      return 504 '${late}';`);
    }
  });

  it('relays the probes without the query string, as the gateway fetches them', () => {
    for (const service of SERVICES) {
      for (const probe of SERVICE_PROBES) {
        const location = locationFor(locations, `/${service}${probe}`);
        expect(location?.body).toContain(`rewrite ^ ${probe}? break;`);
        expect(location?.body).toMatch(new RegExp(`proxy_pass http://${service};`));
      }
    }
  });

  it('reaches the services where docker-compose.yml tells the gateway they are', () => {
    const environment = (parse(read('docker-compose.yml')) as { services: { gateway: { environment: Record<string, string> } } }).services.gateway.environment;
    const hostOf = (url: string | undefined) => new URL(String(url)).host;
    expect(COMPOSE_NGINX_OPTIONS.upstreams).toEqual({ 'auth-server': hostOf(environment['AUTH_SERVER_URL']), 'resource-server': hostOf(environment['RESOURCE_SERVER_URL']) });
  });
});

describe('renderNginxConf with names resolved while nginx runs (--resolve, nginx >= 1.27.3)', () => {
  it('gives each group a shared zone, resolves its server through the resolver, keeps the kept-alive connections', () => {
    const conf = renderNginxConf({ ...COMPOSE_NGINX_OPTIONS, resolve: true });
    expect(conf).toMatch(/^\s*resolver 127\.0\.0\.11 valid=10s ipv6=off;$/m);
    expect(upstreamsOf(conf).get('auth-server')?.trim().split(/\s*\n\s*/)).toEqual([
      'zone upstream-auth-server 64k;',
      'server auth-server:3001 resolve max_fails=0;',
      `keepalive ${UPSTREAM_KEEPALIVE.idleConnections};`,
      `keepalive_timeout ${UPSTREAM_KEEPALIVE.idleTimeoutSeconds}s;`,
      `keepalive_requests ${UPSTREAM_KEEPALIVE.requestsPerConnection};`,
    ]);
    // Only the upstream part differs from the committed file.
    const withoutUpstreams = (text: string) => text.replace(/^\s*(resolver|resolver_timeout|zone|server \S+:\d+|#) .*$\n/gm, '');
    expect(withoutUpstreams(conf)).toEqual(withoutUpstreams(renderNginxConf()));
  });
});

describe('renderNginxConf with a proxy in front (GATEWAY_TRUST_PROXY)', () => {
  it('true: one proxy, its last X-Forwarded-For entry is the client', () => {
    const conf = renderNginxConf({ ...COMPOSE_NGINX_OPTIONS, trustProxy: true });
    expect(conf).toMatch(/real_ip_header X-Forwarded-For;\s+real_ip_recursive off;/);
  });

  it('a list: those proxies only, the chain walked from the right', () => {
    const conf = renderNginxConf({ ...COMPOSE_NGINX_OPTIONS, trustProxy: ['10.0.0.0/8', '192.0.2.1'] });
    expect(conf).toMatch(/set_real_ip_from 10\.0\.0\.0\/8;\s+set_real_ip_from 192\.0\.2\.1;\s+real_ip_header X-Forwarded-For;\s+real_ip_recursive on;/);
    expect(conf).not.toMatch(/0\.0\.0\.0\/0/);
  });
});

describe('renderNginxConf with the public origin (--public-base-url)', () => {
  const https = renderNginxConf({ ...COMPOSE_NGINX_OPTIONS, publicOrigin: 'https://academy.example' });
  const hsts = 'add_header Strict-Transport-Security $platform_strict_transport_security always;';

  it("https: Strict-Transport-Security on every answer, nginx's own and forwarded, unless the service sent its own", () => {
    expect(https).toContain(`map $upstream_http_strict_transport_security $platform_strict_transport_security {\n    "" "${STRICT_TRANSPORT_SECURITY}";\n    default "";\n  }`);
    // The server's add_header list (inherited by the proxying locations) ...
    expect(https).toMatch(/^ {4}add_header X-Request-Id \$platform_request_id always;\n {4}add_header Strict-Transport-Security \$platform_strict_transport_security always;$/m);
    // ... and every location with an add_header of its own, which replaces that list.
    const withOwnHeaders = locationsOf(https).filter((location) => location.body.includes('add_header'));
    expect(withOwnHeaders.length).toBeGreaterThan(0);
    for (const location of withOwnHeaders) expect({ path: location.path, hsts: location.body.includes(hsts) }).toEqual({ path: location.path, hsts: true });
  });

  it('sends the value apps/gateway sends', () => {
    expect(read('apps/gateway/src/strict-transport-security.ts')).toContain(`export const STRICT_TRANSPORT_SECURITY = '${STRICT_TRANSPORT_SECURITY}';`);
  });

  it('http: no Strict-Transport-Security (RFC 6797 §7.2: never over plain HTTP)', () => {
    expect(renderNginxConf({ ...COMPOSE_NGINX_OPTIONS, publicOrigin: 'http://127.0.0.1:3000' })).not.toMatch(/strict-transport-security/i);
  });

  it('refuses absolute-form targets of any other origin with 421, its own taken with or without the default port', () => {
    expect(https).toContain('"~*^\\S+ https://academy\\.example(?::443)?(?:[/?#]\\S*)?$" 0;');
    expect(renderNginxConf({ ...COMPOSE_NGINX_OPTIONS, publicOrigin: 'http://127.0.0.1:3000' })).toContain('"~*^\\S+ http://127\\.0\\.0\\.1:3000(?:[/?#]\\S*)?$" 0;');
  });
});

/** Debian's nginx (CI installs nginx-light: .ci/run); without it these tests are skipped, and say why. */
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((path) => existsSync(path));

interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/** One hand-written request on a socket of its own (no HTTP client sends these targets), read until nginx closes it. */
function raw(port: number, requestLine: string, host: string | null): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${requestLine}\r\n${host === null ? '' : `Host: ${host}\r\n`}Connection: close\r\n\r\n`));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => {
      const split = answer.indexOf('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0), head: answer.slice(0, split), body: answer.slice(split + 4) });
    });
    socket.on('error', reject);
  });
}

/** A stand-in service: answers what it received; /own-hsts with a Strict-Transport-Security of its own. */
async function startService(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (request.url === '/own-hsts') response.setHeader('strict-transport-security', 'max-age=60');
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ service: name, url: request.url, forwardedHost: request.headers['x-forwarded-host'] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** nginx with a rendered variant, on a loopback port, one process, its files in a temporary folder. */
async function startNginx(binary: string, options: NginxConfOptions): Promise<{ stop(): Promise<void> }> {
  const work = mkdtempSync(join(tmpdir(), 'nginx-conf-spec-'));
  const conf = renderNginxConf(options)
    .replace('pid /tmp/nginx.pid;', `pid ${join(work, 'nginx.pid')};`)
    .replace(`listen ${options.port};`, `listen 127.0.0.1:${options.port};`)
    .replace('access_log /dev/stdout', `access_log ${join(work, 'access.log')}`);
  writeFileSync(join(work, 'nginx.conf'), conf);
  const child = spawn(binary, ['-p', work, '-c', join(work, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off; master_process off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let attempt = 0; ; attempt++) {
    const listening = await new Promise<boolean>((resolve) => {
      const probe = connect(options.port, '127.0.0.1', () => probe.end(() => resolve(true)));
      probe.on('error', () => resolve(false));
    });
    if (listening) break;
    if (child.exitCode !== null || attempt > 100) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(work, { recursive: true, force: true });
    },
  };
}

(NGINX ? describe : describe.skip)(`the generated configuration run by nginx (${NGINX ?? 'not installed: apt-get install nginx-light'}) on a loopback port`, () => {
  const services: { server: Server; port: number }[] = [];
  const running: { stop(): Promise<void> }[] = [];
  const ports = { sameHost: 0, https: 0, httpsAuthDown: 0 };

  beforeAll(async () => {
    const [auth, resource] = await Promise.all([startService('auth'), startService('resource')]);
    services.push(auth, resource);
    const upstreams = { 'auth-server': `127.0.0.1:${auth.port}`, 'resource-server': `127.0.0.1:${resource.port}` };
    [ports.sameHost, ports.https, ports.httpsAuthDown] = await Promise.all([freePort(), freePort(), freePort()]);
    const down = await freePort();
    running.push(
      await startNginx(NGINX as string, { ...COMPOSE_NGINX_OPTIONS, upstreams, port: ports.sameHost }),
      await startNginx(NGINX as string, { ...COMPOSE_NGINX_OPTIONS, upstreams, port: ports.https, publicOrigin: 'https://academy.example' }),
      await startNginx(NGINX as string, { ...COMPOSE_NGINX_OPTIONS, upstreams: { ...upstreams, 'auth-server': `127.0.0.1:${down}` }, port: ports.httpsAuthDown, publicOrigin: 'https://academy.example' }),
    );
  });

  afterAll(async () => {
    await Promise.all(running.map((nginx) => nginx.stop()));
    await Promise.all(services.map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });

  const refusal = (answer: RawAnswer) => ({ status: answer.status, json: /\r\ncontent-type: application\/json/i.test(answer.head), body: JSON.parse(answer.body) as unknown });
  const forwarded = (answer: RawAnswer) => ({ status: answer.status, ...(JSON.parse(answer.body) as object) });

  it.each([
    ['GET *', 'academy.example'],
    ['OPTIONS *', 'academy.example'],
    ['CONNECT academy.example:443', 'academy.example:443'],
    ['GET ftp://academy.example/x', 'academy.example'],
    ['GET https://user@academy.example/x', 'academy.example'],
    ['OPTIONS https://academy.example', 'academy.example'],
    ['GET https://academy.example/./metrics', 'academy.example'],
  ])('%s: 400 with the JSON body, on both variants', async (start, host) => {
    for (const port of [ports.sameHost, ports.https]) {
      expect(refusal(await raw(port, `${start} HTTP/1.1`, host))).toEqual({ status: 400, json: true, body: { error: 'invalid_request', error_description: expect.any(String) } });
    }
  });

  it.each(['POST /internal/security-events', 'POST /%69nternal/security-events', 'GET /internal', 'POST /internal/'])(
    '%s: 404 from nginx, never forwarded (the services\' internal routes)',
    async (start) => {
      const answer = await raw(ports.sameHost, `${start} HTTP/1.1`, 'platform.local');
      expect(answer.status).toBe(404);
      expect(answer.body).not.toContain('"service"');
    },
  );

  describe('with the public origin https://academy.example', () => {
    it.each([
      ['/oauth/token?x=1', 'auth'],
      ['/api/v1/courses', 'resource'],
    ])('absolute-form naming it, %s: forwarded in origin-form to the %s service, the Host from the target', async (path, service) => {
      const answer = await raw(ports.https, `GET https://academy.example${path} HTTP/1.1`, 'something.else');
      expect(forwarded(answer)).toEqual({ status: 200, service, url: path, forwardedHost: 'academy.example' });
    });

    it.each([
      ['https://evil.test/oauth/token', 'evil.test'],
      ['http://academy.example/oauth/token', 'academy.example'],
      ['https://academy.example:8443/x', 'academy.example:8443'],
    ])('absolute-form naming another origin, %s: 421 with the JSON body', async (target, host) => {
      expect(refusal(await raw(ports.https, `GET ${target} HTTP/1.1`, host))).toEqual({
        status: 421,
        json: true,
        body: { error: 'invalid_request', error_description: 'The request target names another origin than this one' },
      });
    });

    it("sends Strict-Transport-Security on every answer, nginx's own and forwarded, and the service's own value alone when it sends one", async () => {
      const hstsOf = async (port: number, requestLine: string) => [...(await raw(port, `${requestLine} HTTP/1.1`, 'academy.example')).head.matchAll(/\r\nstrict-transport-security: ([^\r]*)/gi)].map((match) => match[1]);
      expect({
        liveness: await hstsOf(ports.https, 'GET /healthz'),
        notFound: await hstsOf(ports.https, 'GET /metrics'),
        badRequest: await hstsOf(ports.https, 'OPTIONS *'),
        misdirected: await hstsOf(ports.https, 'GET https://evil.test/'),
        forwarded: await hstsOf(ports.https, 'GET /api/v1/courses'),
        probe: await hstsOf(ports.https, 'GET /resource-server/healthz'),
        servicesOwn: await hstsOf(ports.https, 'GET /own-hsts'),
        serviceDown: await hstsOf(ports.httpsAuthDown, 'GET /oauth/token'),
      }).toStrictEqual({
        liveness: [STRICT_TRANSPORT_SECURITY],
        notFound: [STRICT_TRANSPORT_SECURITY],
        badRequest: [STRICT_TRANSPORT_SECURITY],
        misdirected: [STRICT_TRANSPORT_SECURITY],
        forwarded: [STRICT_TRANSPORT_SECURITY],
        probe: [STRICT_TRANSPORT_SECURITY],
        servicesOwn: ['max-age=60'],
        serviceDown: [STRICT_TRANSPORT_SECURITY],
      });
    });
  });

  describe('without a public origin (the committed file)', () => {
    it('takes absolute-form whose authority is the Host the client sent (or no Host, HTTP/1.0), forwarded in origin-form', async () => {
      expect(forwarded(await raw(ports.sameHost, 'GET http://Platform.Local:8080/oauth/token HTTP/1.1', 'platform.local:8080'))).toEqual({
        status: 200,
        service: 'auth',
        url: '/oauth/token',
        forwardedHost: 'Platform.Local:8080',
      });
      expect(forwarded(await raw(ports.sameHost, 'GET http://platform.local/api/v1/courses HTTP/1.0', null))).toEqual({ status: 200, service: 'resource', url: '/api/v1/courses', forwardedHost: 'platform.local' });
    });

    it('refuses absolute-form whose authority contradicts the Host: 400', async () => {
      expect((await raw(ports.sameHost, 'GET http://evil.test/oauth/token HTTP/1.1', 'platform.local')).status).toBe(400);
      expect((await raw(ports.sameHost, 'GET http://evil.test.platform.local/ HTTP/1.1', 'evil.test')).status).toBe(400);
    });

    it('sends no Strict-Transport-Security', async () => {
      expect((await raw(ports.sameHost, 'GET /healthz HTTP/1.1', 'platform.local')).head).not.toMatch(/strict-transport-security/i);
    });
  });
});

describe('docker-compose.nginx.yml', () => {
  const override = parse(read('docker-compose.nginx.yml')) as { services: Record<string, { build: { dockerfile: string; args: Record<string, string> }; image: string }> };

  it('replaces only what runs in the gateway service, with the image of deploy/nginx/Dockerfile (default: the official nginx image)', () => {
    expect(Object.keys(override.services)).toEqual(['gateway']);
    expect(override.services['gateway']?.build.dockerfile).toBe('deploy/nginx/Dockerfile');
    expect(override.services['gateway']?.build.args).toEqual({ NGINX_IMAGE: '${NGINX_IMAGE:-nginx:1.28-bookworm}' });
    expect(override.services['gateway']?.image).toBe('localhost/course-platform/nginx-gateway:${IMAGE_TAG:-local}');
  });

  it('builds the generated file into an image that runs nginx unprivileged, with a health check', () => {
    const dockerfile = read('deploy/nginx/Dockerfile');
    expect(dockerfile).toMatch(/^ARG NGINX_IMAGE=nginx:1\.28-bookworm$/m);
    expect(dockerfile).toContain(`COPY ${NGINX_CONF_PATH} /etc/nginx/platform/nginx.conf`);
    const final = parseStages(dockerfile).at(-1);
    const keywords = final?.instructions.map((instruction) => instruction.getKeyword());
    expect(keywords).toEqual(expect.arrayContaining(['USER', 'HEALTHCHECK', 'CMD']));
    expect(final?.instructions.find((instruction) => instruction.getKeyword() === 'USER')?.getArgumentsContent()).not.toMatch(/^(root|0)\b/);
  });
});
