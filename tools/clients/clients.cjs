#!/usr/bin/env node
// npm run clients -- <command>: staff tool for registered integrations (apps/auth-server/src/cli).
// Runs the TypeScript sources directly with jiti (which Prisma's config loader and ESLint use too),
// with the workspace's path aliases; no build step.
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
const { runClientsCli } = jiti(path.join(root, 'apps/auth-server/src/cli/clients-cli.ts'));
runClientsCli(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
