#!/usr/bin/env node
// npm run events -- <command>: staff tool for the security events and webhook deliveries
// (apps/resource-server/src/cli). Runs the TypeScript sources directly with jiti, with the
// workspace's path aliases, as tools/clients does; no build step.
'use strict';
const path = require('node:path');
const { createJiti } = require('jiti');

const root = path.resolve(__dirname, '../..');
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));
const alias = Object.fromEntries(
  Object.entries(compilerOptions.paths ?? {}).map(([name, [target]]) => [name, path.join(root, target)]),
);
const jiti = createJiti(__filename, { alias, interopDefault: true, moduleCache: true });

process.env.CHECKPOINT_DISABLE = '1';
const { runEventsCli } = jiti(path.join(root, 'apps/resource-server/src/cli/events-cli.ts'));
runEventsCli(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
