#!/usr/bin/env node
// Runs the Prisma CLI for each service's schema without any engine download:
//   node tools/prisma/cli.cjs generate-all
//   node tools/prisma/cli.cjs migrate-deploy <auth|resource>   (DATABASE_URL: that service's database)
//   node tools/prisma/cli.cjs new-migration <auth|resource> <name>
//     writes prisma/<schema>/migrations/<timestamp>_<name>/migration.sql: what the schema has that
//     the migrations do not (DATABASE_URL: a PostgreSQL 15 server where the CLI may create and drop
//     a shadow database; `migrate dev` is not used: see STACK.md)
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
  case 'new-migration': {
    const name = process.argv[4];
    if (!SCHEMAS.includes(schema) || !/^[a-z0-9_]+$/.test(name ?? '')) {
      console.error(`usage: cli.cjs new-migration <${SCHEMAS.join('|')}> <snake_case_name>`);
      process.exit(2);
    }
    const migrations = path.join('prisma', schema, 'migrations');
    const diff = spawnSync(
      process.execPath,
      ['-r', path.join(__dirname, 'unref-timers.cjs'), path.join(root, 'node_modules/prisma/build/index.js'),
        'migrate', 'diff', '--config', configOf(schema), '--from-migrations', migrations,
        '--to-schema-datamodel', path.join('prisma', schema, 'schema.prisma'), '--script'],
      { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CHECKPOINT_DISABLE: '1' } },
    );
    if (diff.status !== 0) process.exit(diff.status ?? 1);
    const sql = diff.stdout.replace(/^Loaded Prisma config.*\n/m, '').trim();
    if (sql === '' || sql === '-- This is an empty migration.') {
      console.error('The schema and the migrations agree: nothing to write.');
      process.exit(1);
    }
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const dir = path.join(root, migrations, `${stamp}_${name}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'migration.sql'), `${sql}\n`);
    console.log(path.relative(root, path.join(dir, 'migration.sql')));
    break;
  }
  default:
    console.error('usage: cli.cjs generate-all | migrate-deploy <schema> | new-migration <schema> <name>');
    process.exit(2);
}
