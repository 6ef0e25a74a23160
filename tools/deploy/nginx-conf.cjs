#!/usr/bin/env node
// Writes deploy/kubernetes/components/nginx-gateway/nginx.conf: the nginx configuration of
// deploy/nginx (tools/containers/src/nginx-conf.ts, from libs/route-table) in the variant that
// trusts exactly one proxy in front, the Ingress controller (as GATEWAY_TRUST_PROXY=true).
//   node tools/deploy/nginx-conf.cjs            write it
//   node tools/deploy/nginx-conf.cjs --check    exit 1 if the committed file is stale
// tools/deploy's spec fails while it is stale. Runs the TypeScript sources with jiti and the
// workspace's path aliases (as tools/containers/nginx-conf.cjs does).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const NGINX_VARIANT_PATH = 'deploy/kubernetes/components/nginx-gateway/nginx.conf';

/**
 * The Kubernetes variant: the compose options (upstreams `auth-server:3001` and
 * `resource-server:3002`, the Services' names and ports) with one trusted proxy.
 * @template Options
 * @param {(options: Options & { trustProxy: boolean }) => string} render
 * @param {Options} composeOptions
 */
function nginxVariant(render, composeOptions) {
  return [
    '# deploy/kubernetes/components/nginx-gateway: nginx behind exactly one proxy, the Ingress controller',
    '# (GATEWAY_TRUST_PROXY=true). Written by node tools/deploy/nginx-conf.cjs: do not edit by hand.',
    render({ ...composeOptions, trustProxy: true }),
  ].join('\n');
}

function main() {
  const { createJiti } = require('jiti');
  const root = path.resolve(__dirname, '../..');
  const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));
  const alias = Object.fromEntries(Object.entries(compilerOptions.paths ?? {}).map(([name, [target]]) => [name, path.join(root, target)]));
  const jiti = createJiti(__filename, { alias, interopDefault: true, moduleCache: true });
  /** @type {typeof import('../containers/src/nginx-conf')} */
  const { renderNginxConf, COMPOSE_NGINX_OPTIONS } = jiti(path.join(root, 'tools/containers/src/nginx-conf.ts'));
  const rendered = nginxVariant(renderNginxConf, COMPOSE_NGINX_OPTIONS);
  const target = path.join(root, NGINX_VARIANT_PATH);
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current !== rendered) {
      console.error(`${NGINX_VARIANT_PATH} is stale: run node tools/deploy/nginx-conf.cjs`);
      process.exit(1);
    }
    return;
  }
  fs.writeFileSync(target, rendered);
  console.log(`wrote ${NGINX_VARIANT_PATH}`);
}

if (require.main === module) main();

module.exports = { NGINX_VARIANT_PATH, nginxVariant };
