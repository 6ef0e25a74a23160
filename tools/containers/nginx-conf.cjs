#!/usr/bin/env node
// Renders deploy/nginx/nginx.conf from libs/route-table (tools/containers/src/nginx-conf.ts), for
// docker-compose.nginx.yml: nginx in place of apps/gateway.
//   node tools/containers/nginx-conf.cjs            write deploy/nginx/nginx.conf
//   node tools/containers/nginx-conf.cjs --check    exit 1 if the committed file is stale
//   node tools/containers/nginx-conf.cjs --stdout [--trust-proxy true|ADDR,CIDR,...] [--upload-max-bytes N]
//                                                 [--port N] [--auth-server HOST:PORT] [--resource-server HOST:PORT]
//                                                 [--resolve [--resolver ADDR]] [--public-base-url URL]
//                                                   print a variant (e.g. behind your TLS proxy, or the bench's nginx on the host);
//                                                   --resolve: nginx >= 1.27.3 only, names resolved while nginx runs (deploy/nginx/README.md)
//                                                   --public-base-url: PUBLIC_BASE_URL; absolute-form targets must name its origin,
//                                                   and an https one adds Strict-Transport-Security to every answer
// Runs the TypeScript sources with jiti and the workspace's path aliases (as tools/clients does).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { createJiti } = require('jiti');

const root = path.resolve(__dirname, '../..');
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));
const alias = Object.fromEntries(Object.entries(compilerOptions.paths ?? {}).map(([name, [target]]) => [name, path.join(root, target)]));
const jiti = createJiti(__filename, { alias, interopDefault: true, moduleCache: true });
/** @type {typeof import('./src/nginx-conf')} */
const { renderNginxConf, COMPOSE_NGINX_OPTIONS, NGINX_CONF_PATH } = jiti(path.join(__dirname, 'src/nginx-conf.ts'));

const args = process.argv.slice(2);
/** @param {string} name */
const valueOf = (name) => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const options = { ...COMPOSE_NGINX_OPTIONS };
const trust = valueOf('--trust-proxy');
if (trust !== undefined) options.trustProxy = trust === 'true' ? true : trust === 'false' ? false : trust.split(',').map((entry) => entry.trim()).filter(Boolean);
const upload = valueOf('--upload-max-bytes');
if (upload !== undefined) {
  options.uploadMaxBytes = Number(upload);
  if (!Number.isInteger(options.uploadMaxBytes) || options.uploadMaxBytes < 1) throw new Error(`--upload-max-bytes: not a byte count: ${upload}`);
}
const port = valueOf('--port');
if (port !== undefined) {
  options.port = Number(port);
  if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535) throw new Error(`--port: not a port: ${port}`);
}
for (const service of ['auth-server', 'resource-server']) {
  const upstream = valueOf(`--${service}`);
  if (upstream === undefined) continue;
  if (!/^[A-Za-z0-9.-]+:\d{1,5}$/.test(upstream)) throw new Error(`--${service}: expected HOST:PORT, got ${upstream}`);
  options.upstreams = { ...options.upstreams, [service]: upstream };
}
if (args.includes('--resolve')) options.resolve = true;
const resolver = valueOf('--resolver');
if (resolver !== undefined) {
  if (!options.resolve) throw new Error('--resolver: only with --resolve (without it, nginx resolves the names once, at start)');
  options.resolver = resolver;
}
const publicBaseUrl = valueOf('--public-base-url');
if (publicBaseUrl !== undefined) {
  const url = URL.canParse(publicBaseUrl) ? new URL(publicBaseUrl) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new Error(`--public-base-url: not an http(s) URL: ${publicBaseUrl}`);
  options.publicOrigin = url.origin;
}
const rendered = renderNginxConf(options);
const target = path.join(root, NGINX_CONF_PATH);

if (args.includes('--stdout')) {
  process.stdout.write(rendered);
} else if (args.includes('--check')) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (current !== rendered) {
    console.error(`${NGINX_CONF_PATH} is stale: run node tools/containers/nginx-conf.cjs`);
    process.exit(1);
  }
} else {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, rendered);
  console.log(`wrote ${NGINX_CONF_PATH}`);
}
