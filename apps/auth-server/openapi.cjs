#!/usr/bin/env node
// Writes libs/contracts/src/generated/authorization-server-openapi.ts: the auth server's OpenAPI
// description, read by @nestjs/swagger from its controllers (apps/auth-server/src/openapi/).
//   npx nx run auth-server:openapi                  (node apps/auth-server/openapi.cjs)
//   node apps/auth-server/openapi.cjs --check       exit 1 if the committed file is stale
// Runs the TypeScript sources through @swc/core with the unit specs' own options (jest.preset.cjs):
// Nest needs the decorator metadata that swc emits (jiti's transform leaves some of it out).
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const swc = require('@swc/core');

const root = path.resolve(__dirname, '../..');
const [, swcOptions] = Object.values(require(path.join(root, 'jest.preset.cjs')).transform)[0];
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), { ...swcOptions, filename });
  module._compile(code, filename);
};
// The workspace's path aliases (tsconfig.base.json), as tools/containers/nginx-conf.cjs reads them.
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));
const alias = new Map(Object.entries(compilerOptions.paths ?? {}).map(([name, [target]]) => [name, path.join(root, target)]));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, alias.get(request) ?? request, ...rest);
};

async function main() {
  /** @type {typeof import('./src/openapi/authorization-server-document')} */
  const { buildAuthorizationServerOpenApi, renderAuthorizationServerOpenApi, AUTHORIZATION_SERVER_OPENAPI_FILE } = require('./src/openapi/authorization-server-document.ts');
  const rendered = renderAuthorizationServerOpenApi(await buildAuthorizationServerOpenApi());
  const target = path.join(root, AUTHORIZATION_SERVER_OPENAPI_FILE);
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current !== rendered) {
      console.error(`${AUTHORIZATION_SERVER_OPENAPI_FILE} is stale: run npx nx run auth-server:openapi`);
      process.exit(1);
    }
  } else {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, rendered);
    console.log(`wrote ${AUTHORIZATION_SERVER_OPENAPI_FILE}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
