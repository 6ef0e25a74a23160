#!/usr/bin/env node
// Runs the Prisma CLI for each service's schema without any engine download:
//   node tools/prisma/cli.cjs generate-all
//   node tools/prisma/cli.cjs migrate-deploy <auth|resource>   (DATABASE_URL: that service's database)
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const SCHEMAS = ['auth', 'resource'].filter((name) => fs.existsSync(path.join(root, 'prisma', name, 'schema.prisma')));

function prisma(args, env) {
  const result = spawnSync(
    process.execPath,
    ['-r', path.join(__dirname, 'unref-timers.cjs'), path.join(root, 'node_modules/prisma/build/index.js'), ...args],
    { cwd: root, stdio: 'inherit', env: { ...process.env, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1', ...env } },
  );
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const [command, schema] = process.argv.slice(2);
const configOf = (name) => path.join('prisma', name, 'prisma.config.ts');

switch (command) {
  case 'generate-all':
    // generate does not connect; the datasource url only has to parse.
    for (const name of SCHEMAS) {
      prisma(['generate', '--config', configOf(name)], {
        DATABASE_URL: process.env.DATABASE_URL || 'postgresql://generate@127.0.0.1:5432/generate',
      });
    }
    break;
  case 'migrate-deploy':
    if (!SCHEMAS.includes(schema)) {
      console.error(`usage: cli.cjs migrate-deploy <${SCHEMAS.join('|')}>`);
      process.exit(2);
    }
    prisma(['migrate', 'deploy', '--config', configOf(schema)]);
    break;
  default:
    console.error('usage: cli.cjs generate-all | migrate-deploy <schema>');
    process.exit(2);
}
