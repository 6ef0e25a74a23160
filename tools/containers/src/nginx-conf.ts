import {
  DEFAULT_SERVICE,
  DEFAULT_UPLOAD_MAX_BYTES,
  GATEWAY_PATHS,
  ROUTES,
  SERVICE_BODY_LIMITS,
  SERVICE_PROBES,
  SERVICES,
  type ServiceName,
  UPLOAD_PATH,
} from '@platform/route-table';

/**
 * nginx in place of apps/gateway, rendered from libs/route-table (the one place that says which
 * service owns which path). `node tools/containers/nginx-conf.cjs` writes deploy/nginx/nginx.conf;
 * nginx-conf.spec.ts fails when that file is stale or routes a path elsewhere than the table.
 */
export interface NginxConfOptions {
  /** host:port of each service as nginx reaches it (compose: the service names). */
  upstreams: Record<ServiceName, string>;
  /** The port nginx listens on (the gateway's, 3000). */
  port: number;
  /**
   * false: the upstream names are resolved once, when nginx starts or reloads (any nginx; what
   * the committed file does). true: nginx >= 1.27.3 only (`server ... resolve` with a shared
   * `zone`): the names are resolved again through `resolver` while nginx runs, so a recreated
   * container is found at its new address without a reload. nginx 1.22 refuses this variant.
   */
  resolve: boolean;
  /** The DNS server of the `resolve` variant (Docker's embedded DNS in compose). */
  resolver: string;
  /** UPLOAD_MAX_BYTES (the resource server's upload limit). */
  uploadMaxBytes: number;
  /**
   * GATEWAY_TRUST_PROXY: false (nginx is the edge: the peer is the client), true (exactly one
   * proxy in front: the last X-Forwarded-For entry), or the proxies' addresses / CIDR ranges.
   */
  trustProxy: boolean | readonly string[];
  /**
   * PUBLIC_BASE_URL's origin (`https://academy.example`), or undefined (the committed file: its
   * origin is each deployment's .env). Given, absolute-form targets must name it (421 otherwise),
   * and an https origin adds Strict-Transport-Security to every answer.
   */
  publicOrigin: string | undefined;
}

/**
 * The kept-alive connections from nginx to each service (`upstream` ... `keepalive`), so that a
 * request does not open (and leave in TIME_WAIT) a TCP connection of its own.
 */
export const UPSTREAM_KEEPALIVE = {
  /** Idle connections each worker keeps per service; more are opened under load and closed after use. */
  idleConnections: 32,
  /**
   * How long nginx keeps an idle one. SHORTER than the services' own keep-alive timeout (Fastify's
   * keepAliveTimeout, 72 s by default, which libs/service-runtime leaves as it is): the side that
   * waits less closes first, so nginx never sends a request on a connection the service is
   * closing at that moment (a POST that meets that race is not retried: a 503).
   */
  idleTimeoutSeconds: 30,
  /** Requests per connection before nginx closes it (nginx's default; the services set no limit). */
  requestsPerConnection: 1000,
} as const;

/** What docker-compose.yml runs: the services' names and ports, Docker's DNS, nginx as the edge. */
export const COMPOSE_NGINX_OPTIONS: NginxConfOptions = {
  upstreams: { 'auth-server': 'auth-server:3001', 'resource-server': 'resource-server:3002' },
  port: 3000,
  resolve: false,
  resolver: '127.0.0.11',
  uploadMaxBytes: DEFAULT_UPLOAD_MAX_BYTES,
  trustProxy: false,
  publicOrigin: undefined,
};

/**
 * The Strict-Transport-Security value of an https origin: apps/gateway's (strict-transport-security.ts;
 * the spec compares them). Two years, subdomains included, no `preload` (the operator's decision).
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';

/** The file the compose override builds into its nginx image. */
export const NGINX_CONF_PATH = 'deploy/nginx/nginx.conf';

/** The same bodies apps/gateway answers with (probes.ts, upstream-error.ts, frameworkErrorOptions). */
const BODIES = {
  alive: { status: 'ok', info: {}, error: {}, details: {} },
  notFound: { error: 'not_found', error_description: 'No such resource' },
  badRequest: { error: 'invalid_request', error_description: 'The request is not valid HTTP, or its target is not a path of this origin without dot segments or backslashes' },
  misdirected: { error: 'invalid_request', error_description: 'The request target names another origin than this one' },
  tooLarge: { error: 'invalid_request', error_description: 'The request body is too large' },
  headersTooLarge: { error: 'invalid_request', error_description: 'The request headers are too large' },
  unreachable: (service: string) => ({ error: 'temporarily_unavailable', error_description: `The ${service} is not reachable; try again shortly.` }),
  timeout: (service: string) => ({ error: 'temporarily_unavailable', error_description: `The ${service} did not answer in time.` }),
};

/** A JSON body as an nginx string literal (single-quoted; nothing in these bodies needs escaping). */
function literal(body: unknown): string {
  const json = JSON.stringify(body);
  if (/['\\$]/.test(json)) throw new Error(`cannot quote for nginx: ${json}`);
  return `'${json}'`;
}

/**
 * Where nginx's own refusals are answered (internal locations). URIs, not named locations: a
 * request whose request line failed has no URI, and a redirect to a named location fails (500).
 */
const ERRORS = '/.platform-errors';

/** Where a non-file body sent to UPLOAD_PATH is handled (internal: never reachable from outside). */
const UPLOAD_OTHER = '/.platform-upload-other-media';

/**
 * The `upstream` group of a service is named as the service: nginx sends it as the Host header
 * (`$proxy_host`) too.
 */
const groupOf = (service: ServiceName) => service;

/** nginx's size syntax: bytes, or k/m when exact. */
function size(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)}m`;
  if (bytes % 1024 === 0) return `${bytes / 1024}k`;
  return String(bytes);
}

/**
 * The answers nginx itself gives, by status, as JSON. error_page is inherited only by locations
 * that set none of their own, so every location that sets one gets the whole list.
 */
function errorPages(service: ServiceName | undefined): string[] {
  // 505: an unknown HTTP version is a 400 at the gateway (Node's parser), and a client error.
  const pages = [
    `error_page 400 505 =400 ${ERRORS}/bad-request;`,
    `error_page 404 ${ERRORS}/not-found;`,
    `error_page 413 ${ERRORS}/too-large;`,
    `error_page 414 494 =431 ${ERRORS}/headers-too-large;`,
    `error_page 421 ${ERRORS}/misdirected;`,
  ];
  // 504 `=`: the status is the one the error location answers (503 when nginx never connected).
  if (service) pages.push(`error_page 502 503 =503 ${ERRORS}/${service}-unreachable;`, `error_page 504 = ${ERRORS}/${service}-timeout;`);
  return pages;
}

/**
 * Refused targets, before anything else, as the gateway does: ambiguous paths (the map
 * $platform_ambiguous_target) 400; absolute-form targets of another origin 421, or malformed
 * 400 ($platform_target_refusal).
 */
const GUARD = [
  'if ($platform_ambiguous_target) { return 400; }',
  'if ($platform_target_refusal = 400) { return 400; }',
  'if ($platform_target_refusal = 421) { return 421; }',
];

/**
 * Strict-Transport-Security when the public origin is https, unless the service sent its own
 * (an empty value adds no header). RFC 6797 §7.2: an HSTS host "MUST NOT include the STS header
 * field in HTTP responses conveyed over non-secure transport"; nginx here speaks plain HTTP
 * behind the TLS termination, so the public origin's scheme decides, not nginx's $scheme.
 */
function strictTransportSecurity(options: NginxConfOptions): string[] {
  return options.publicOrigin?.startsWith('https:') ? ['add_header Strict-Transport-Security $platform_strict_transport_security always;'] : [];
}

/**
 * Headers of every answer (the server's add_header list) and of nginx's own answers: add_header
 * in a location replaces the server's, so a location with any of its own repeats them all.
 */
function edgeHeaders(options: NginxConfOptions): string[] {
  return ['add_header X-Request-Id $platform_request_id always;', ...strictTransportSecurity(options)];
}

function ownAnswerHeaders(options: NginxConfOptions): string[] {
  return ['add_header Cache-Control no-store always;', ...edgeHeaders(options)];
}

/** A regex for one origin's scheme and authority, the scheme's default port optional. */
function originPattern(origin: string): string {
  const url = new URL(origin);
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  return `${url.protocol.slice(0, -1)}://${url.host.replace(/[.[\]]/g, (character) => `\\${character}`)}${url.port ? '' : `(?::${defaultPort})?`}`;
}

/**
 * How the target of the request line is answered (request-target.ts in apps/gateway): nginx's
 * own parser refuses the asterisk-form (`*`, also for OPTIONS) and CONNECT's authority-form
 * with 400; absolute-form, which RFC 9112 §3.2.2 says a server "MUST accept", is forwarded in
 * origin-form by nginx itself when it names this origin, and otherwise refused here: another
 * origin 421 (RFC 9110 §15.5.20), another scheme 400, and `OPTIONS http://host` (the server-wide
 * OPTIONS in absolute-form, RFC 9112 §3.2.4) 400. Which origin is this one: the public origin when
 * given; otherwise the Host the client sent ("identical to that authority component", RFC 9112
 * §3.2), whose contradiction is a 400. Regexes are tried in order, the first match wins.
 */
function targetRefusalMap(options: NginxConfOptions): string[] {
  const absolute = [
    '# absolute-form: the target as sent (nginx forwards its path and query); empty for origin-form.',
    'map $request $platform_absolute_target {',
    '  "~^\\S+ (?<target>[A-Za-z][A-Za-z0-9+.-]*://\\S*)" $target;',
    '  default "";',
    '}',
  ];
  if (options.publicOrigin) {
    return [
      ...absolute,
      'map "$request_method $platform_absolute_target" $platform_target_refusal {',
      '  "~^\\S+ $" 0;',
      '  "~*^OPTIONS https?://[^/?#]*$" 400;',
      `  "~*^\\S+ ${originPattern(options.publicOrigin)}(?:[/?#]\\S*)?$" 0;`,
      '  "~*^\\S+ https?://[^/?#]+(?:[/?#]\\S*)?$" 421;',
      '  default 400;',
      '}',
    ];
  }
  return [
    ...absolute,
    // The Host after the last `|` (an authority has none): equal to the target's authority, or
    // absent (HTTP/1.0).
    'map "$request_method $platform_absolute_target|$http_host" $platform_target_refusal {',
    '  "~^\\S+ \\|" 0;',
    '  "~*^OPTIONS https?://[^/?#|]*\\|" 400;',
    '  "~*^\\S+ https?://([^/?#|]+)(?:[/?#]\\S*)?\\|(?:\\1)?$" 0;',
    '  default 400;',
    '}',
  ];
}

function proxyLocation(match: '=' | '^~', path: string, service: ServiceName, bodyLimit: number, comment: string, before: string[] = []): string[] {
  return [
    `# ${comment}`,
    `location ${match} ${path} {`,
    ...GUARD.map((line) => `  ${line}`),
    ...before.map((line) => `  ${line}`),
    `  client_max_body_size ${size(bodyLimit)};`,
    ...errorPages(service).map((line) => `  ${line}`),
    `  proxy_pass http://${groupOf(service)};`,
    '}',
  ];
}

function ownAnswer(path: string, status: number, body: unknown, comment: string, headers: string[]): string[] {
  return [
    `# ${comment}`,
    `location = ${path} {`,
    ...GUARD.map((line) => `  ${line}`),
    // Methods other than GET/HEAD on the gateway's own paths: 404, never forwarded (probes.ts).
    '  if ($request_method !~ ^(GET|HEAD)$) { return 404; }',
    ...headers.map((line) => `  ${line}`),
    `  return ${status} ${literal(body)};`,
    '}',
  ];
}

function realIp(trustProxy: boolean | readonly string[]): string[] {
  if (trustProxy === false || (Array.isArray(trustProxy) && trustProxy.length === 0)) {
    return ['# GATEWAY_TRUST_PROXY=false: nginx is the edge; the peer address is the client. No realip.'];
  }
  if (trustProxy === true) {
    return [
      '# GATEWAY_TRUST_PROXY=true: exactly one proxy in front; the last X-Forwarded-For entry is the client.',
      'set_real_ip_from 0.0.0.0/0;',
      'set_real_ip_from ::/0;',
      'real_ip_header X-Forwarded-For;',
      'real_ip_recursive off;',
    ];
  }
  return [
    '# GATEWAY_TRUST_PROXY: these proxies may name the client; their chain is walked from the right.',
    ...(trustProxy as readonly string[]).map((entry) => `set_real_ip_from ${entry};`),
    'real_ip_header X-Forwarded-For;',
    'real_ip_recursive on;',
  ];
}

/**
 * One `upstream` group per service, with kept-alive connections (proxy_http_version 1.1 and an
 * empty Connection header, set in the server, let nginx reuse them).
 */
function upstreamBlocks(options: NginxConfOptions): string[] {
  const { idleConnections, idleTimeoutSeconds, requestsPerConnection } = UPSTREAM_KEEPALIVE;
  const lines: string[] = [];
  if (options.resolve) {
    lines.push(
      '# The services\' names are resolved again while nginx runs (nginx >= 1.27.3: `resolve`), through',
      '# this DNS server (Docker\'s): a recreated container is found at its new address.',
      `resolver ${options.resolver} valid=10s ipv6=off;`,
      'resolver_timeout 5s;',
    );
  } else {
    lines.push(
      '# The services\' names are resolved once, when nginx starts or reloads: a service container',
      '# recreated with another address needs `nginx -s reload` (deploy/nginx/README.md).',
    );
  }
  for (const service of SERVICES) {
    const group = groupOf(service);
    lines.push(
      `upstream ${group} {`,
      ...(options.resolve ? [`  zone upstream-${group} 64k;`] : []),
      // max_fails=0: nginx never takes the service out of the group after failures (its only
      // server, or each address of a scaled one); every request tries it, and a down service
      // is the JSON 503 at once, as through the gateway.
      `  server ${options.upstreams[service]}${options.resolve ? ' resolve' : ''} max_fails=0;`,
      `  keepalive ${idleConnections};`,
      `  keepalive_timeout ${idleTimeoutSeconds}s;`,
      `  keepalive_requests ${requestsPerConnection};`,
      '}',
    );
  }
  return lines;
}

function indent(lines: string[], depth: number): string[] {
  return lines.map((line) => (line === '' ? '' : `${'  '.repeat(depth)}${line}`));
}

/** The whole nginx.conf. */
export function renderNginxConf(options: NginxConfOptions = COMPOSE_NGINX_OPTIONS): string {
  const ownHeaders = ownAnswerHeaders(options);
  const server: string[] = [
    `listen ${options.port};`,
    // HTTP/0.9 (a request line without a version): nginx would answer without a status line or
    // headers, which no client of this platform can use; close the connection instead (444).
    'if ($platform_http09) { return 444; }',
    '',
    ...realIp(options.trustProxy),
    '',
    // The gateway's routing sees the path as sent: no merging of // (route-table serviceFor).
    'merge_slashes off;',
    '',
    // The services trust X-Forwarded-For from the backend network only (TRUSTED_PROXIES), so
    // what nginx sends is what they count: REPLACED by the one address nginx resolved
    // ($remote_addr, after realip when proxies are trusted), never appended to
    // ($proxy_add_x_forwarded_for would pass a client-written chain on).
    'proxy_set_header X-Forwarded-For $remote_addr;',
    'proxy_set_header X-Forwarded-Proto $scheme;',
    // The Host the client named: the target's authority for absolute-form (RFC 9112 §3.2.2).
    'proxy_set_header X-Forwarded-Host $platform_forwarded_host;',
    'proxy_set_header X-Request-Id $platform_request_id;',
    'proxy_http_version 1.1;',
    'proxy_set_header Connection "";',
    // Streamed answers (server-sent events on /mcp) go out as they come, as through the gateway.
    'proxy_buffering off;',
    // A service's address that no longer answers (its container stopped: the name nginx resolved
    // at start points nowhere) fails the connection attempt after this rather than nginx's 60 s;
    // the answer is the JSON 503. A connection on the backend network takes well under a
    // millisecond; 5 s still covers two SYN retransmits (1 s, 3 s) to a service whose accept
    // queue is full. (The gateway's undici waits 10 s, but asks DNS first: a stopped container's
    // name is gone, so it answers at once.)
    'proxy_connect_timeout 5s;',
    'proxy_hide_header X-Request-Id;',
    ...edgeHeaders(options),
    '',
    ...errorPages(undefined),
    '',
    ...ownAnswer(GATEWAY_PATHS.liveness, 200, BODIES.alive, "The gateway's liveness: it answers.", ownHeaders),
    '',
    ...ownAnswer(
      GATEWAY_PATHS.readiness,
      200,
      BODIES.alive,
      "Readiness: nginx answers. (apps/gateway also asks each service's /healthz; compose starts nginx only once both are healthy.)",
      ownHeaders,
    ),
    '',
    '# Metrics are scraped on each service\'s own port, never through the origin.',
    `location = ${GATEWAY_PATHS.metrics} { ${GUARD.join(' ')} return 404; }`,
    '',
    '# The services\' internal routes (the security events sent to the resource server): their own ports only.',
    `location = ${GATEWAY_PATHS.internal} { ${GUARD.join(' ')} return 404; }`,
    `location ^~ ${GATEWAY_PATHS.internal}/ { ${GUARD.join(' ')} return 404; }`,
  ];

  for (const service of SERVICES) {
    for (const probe of SERVICE_PROBES) {
      server.push(
        '',
        `# ${service}'s ${probe}, relayed.`,
        `location = /${service}${probe} {`,
        ...GUARD.map((line) => `  ${line}`),
        '  if ($request_method !~ ^(GET|HEAD)$) { return 404; }',
        ...errorPages(service).map((line) => `  ${line}`),
        // proxy_hide_header in a location replaces the server's list: X-Request-Id again.
        '  proxy_hide_header Cache-Control;',
        '  proxy_hide_header X-Request-Id;',
        ...ownHeaders.map((line) => `  ${line}`),
        // The probe's path alone, as the gateway fetches it: `?` drops the query string.
        `  rewrite ^ ${probe}? break;`,
        `  proxy_pass http://${groupOf(service)};`,
        '}',
      );
    }
    server.push('', `# Nothing else of ${service} is reachable under its probe prefix.`, `location = /${service} { ${GUARD.join(' ')} return 404; }`, `location ^~ /${service}/ { ${GUARD.join(' ')} return 404; }`);
  }

  for (const route of ROUTES) {
    const limit = SERVICE_BODY_LIMITS[route.service];
    server.push('');
    if (route.match === 'exact') {
      server.push(...proxyLocation('=', route.path, route.service, limit, `route table: ${route.path} (exact) -> ${route.service}`));
    } else {
      server.push(
        ...proxyLocation('=', route.path, route.service, limit, `route table: ${route.path} and below (prefix) -> ${route.service}`),
        ...proxyLocation('^~', `${route.path}/`, route.service, limit, `route table: ${route.path}/... -> ${route.service}`),
      );
    }
  }
  server.push(
    '',
    ...proxyLocation('=', UPLOAD_PATH, 'resource-server', options.uploadMaxBytes, `uploads of the stored media types: UPLOAD_MAX_BYTES (${options.uploadMaxBytes} bytes)`, [
      // Any other body on the upload path is held to the service's own limit, as the gateway
      // does: the service refuses a bigger one before reading it and closes the connection
      // under nginx's upload (a 502). client_max_body_size takes no variables: another location.
      `if ($platform_upload_media = 0) { rewrite ^ ${UPLOAD_OTHER} last; }`,
    ]),
    `# ${UPLOAD_PATH} with a body of another media type: the resource server's limit.`,
    `location = ${UPLOAD_OTHER} {`,
    '  internal;',
    `  client_max_body_size ${size(SERVICE_BODY_LIMITS['resource-server'])};`,
    ...errorPages('resource-server').map((line) => `  ${line}`),
    // The request as the client sent it (path and query), not the internal URI.
    // (A variable in proxy_pass: nginx finds the `upstream` group of that name first.)
    `  proxy_pass http://${groupOf('resource-server')}$request_uri;`,
    '}',
    '',
    ...proxyLocation('^~', '/', DEFAULT_SERVICE, SERVICE_BODY_LIMITS[DEFAULT_SERVICE], `every other path -> ${DEFAULT_SERVICE} (DEFAULT_SERVICE)`),
  );

  const named = (name: string, status: number, body: unknown, before: string[] = []) => [
    `location = ${ERRORS}/${name} {`,
    '  internal;',
    // The rest of a refused body is read and thrown away here: no limit of this location's
    // own may refuse it again (which would end in nginx's HTML page, not this answer).
    '  client_max_body_size 0;',
    ...ownHeaders.map((line) => `  ${line}`),
    ...before.map((line) => `  ${line}`),
    `  return ${status} ${literal(body)};`,
    '}',
  ];
  server.push(
    '',
    '# nginx\'s own refusals, in the JSON the gateway answers with.',
    ...named('bad-request', 400, BODIES.badRequest),
    ...named('not-found', 404, BODIES.notFound),
    ...named('too-large', 413, BODIES.tooLarge),
    ...named('headers-too-large', 431, BODIES.headersTooLarge),
    ...named('misdirected', 421, BODIES.misdirected),
  );
  for (const service of SERVICES) {
    server.push(
      ...named(`${service}-unreachable`, 503, BODIES.unreachable(service)),
      // nginx answers 504 for a connection that was never made too; the gateway, 503 (undici's
      // UND_ERR_CONNECT_TIMEOUT: not reachable). A 504 is a service that took the connection and
      // did not answer.
      ...named(`${service}-timeout`, 504, BODIES.timeout(service), [`if ($platform_upstream_unreached) { return 503 ${literal(BODIES.unreachable(service))}; }`]),
    );
  }

  const lines = [
    '# GENERATED from libs/route-table by tools/containers/nginx-conf.cjs: do not edit by hand.',
    '# Regenerate: node tools/containers/nginx-conf.cjs (tools/containers/src/nginx-conf.spec.ts fails when stale).',
    '# nginx in place of apps/gateway (docker-compose.nginx.yml). Runs as an unprivileged user',
    '# (no `user` directive, temporary files under /tmp), on the official nginx image or a stand-in.',
    'worker_processes auto;',
    'pid /tmp/nginx.pid;',
    'error_log stderr warn;',
    '',
    'events {',
    '  worker_connections 1024;',
    '}',
    '',
    'http {',
    '  server_tokens off;',
    '  default_type application/json;',
    '  client_body_temp_path /tmp/nginx-client-body;',
    '  proxy_temp_path /tmp/nginx-proxy;',
    '  fastcgi_temp_path /tmp/nginx-fastcgi;',
    '  uwsgi_temp_path /tmp/nginx-uwsgi;',
    '  scgi_temp_path /tmp/nginx-scgi;',
    // One buffer: the request line and headers together within 15 KiB, as the gateway (Node's
    // 16 KiB, less what nginx adds: X-Forwarded-*, X-Request-Id). A bigger one reaching a service
    // with a body would be refused mid-upload (a 502); here it is a JSON 431.
    '  large_client_header_buffers 1 15k;',
    '',
    // requestIdFrom (libs/logging): a sane incoming id is kept, anything else replaced
    // by a fresh one in the UUID layout the services mint.
    '  map $request_id $platform_minted_request_id {',
    '    "~^(.{8})(.{4})(.{4})(.{4})(.{12})$" "$1-$2-$3-$4-$5";',
    '  }',
    // request-target.ts: dot segments (also %2e) and backslashes (\x5c: nginx's own unescaping
    // of a doubled backslash in strings would eat one) mean one thing here and another upstream:
    // refused, in every public location (GUARD). Not at server level: that check would run again
    // on the internal redirect to the error answer, with the value cached, and loop.
    '  map $request_uri $platform_ambiguous_target {',
    '    "~*^[^?]*(\\x5c|/(\\.|%2e){1,2}(/|\\?|$))" 1;',
    '    default 0;',
    '  }',
    ...indent(targetRefusalMap(options), 1),
    '  map $platform_absolute_target $platform_forwarded_host {',
    '    "~^[^:]+://(?<authority>[^/?#]*)" $authority;',
    '    default $http_host;',
    '  }',
    ...(strictTransportSecurity(options).length > 0
      ? [
          // No header when the service sent its own (an empty add_header value adds nothing).
          '  map $upstream_http_strict_transport_security $platform_strict_transport_security {',
          `    "" "${STRICT_TRANSPORT_SECURITY}";`,
          '    default "";',
          '  }',
        ]
      : []),
    // HTTP/0.9: no protocol. (A request whose request line failed has none either; its error
    // answer, an internal redirect to ${ERRORS}, is let through.)
    '  map "$server_protocol|$uri" $platform_http09 {',
    `    "~^\\|${ERRORS}/" 0;`,
    '    "~^\\|" 1;',
    '    default 0;',
    '  }',
    // gateway.ts isUploadMediaType: the media types the upload route stores.
    // The last attempt at the service never connected ("-"): its 504 is a 503 (not reachable).
    '  map $upstream_connect_time $platform_upstream_unreached {',
    '    "~-$" 1;',
    '    default 0;',
    '  }',
    '  map $content_type $platform_upload_media {',
    '    "~*^\\s*(image/|text/|application/pdf\\s*(;|$))" 1;',
    '    default 0;',
    '  }',
    '  map $http_x_request_id $platform_request_id {',
    '    "~^[A-Za-z0-9._-]{1,128}$" $http_x_request_id;',
    '    default $platform_minted_request_id;',
    '  }',
    '',
    // One JSON line per request with the request id, the path as sent (never the query string,
    // which may carry codes), the status; probes not logged (the gateway logs them at debug).
    // Written in 32 KB batches, at least every second (and when nginx stops or reopens its
    // logs): one write(2) per request was ~12 µs of nginx's ~98 µs of CPU per request (issue 12).
    '  map $request_uri $platform_log_path {',
    '    "~^(?<path>[^?]*)" $path;',
    '  }',
    '  map $platform_log_path $platform_logged {',
    `    ${GATEWAY_PATHS.liveness} 0;`,
    `    ${GATEWAY_PATHS.readiness} 0;`,
    '    default 1;',
    '  }',
    '  log_format platform escape=json \'{"time":"$time_iso8601","reqId":"$platform_request_id","method":"$request_method",\'',
    '    \'"path":"$platform_log_path","status":$status,"responseTime":$request_time,"upstream":"$upstream_addr"}\';',
    '  access_log /dev/stdout platform buffer=32k flush=1s if=$platform_logged;',
    '',
    ...indent(upstreamBlocks(options), 1),
    '',
    '  server {',
    ...indent(server, 2),
    '  }',
    '}',
    '',
  ];
  return lines.join('\n');
}
