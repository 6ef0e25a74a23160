import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { urlPassword } from './compose-rules';
import { generateSecrets, generateSigningJwk, localOverrides, parseEnvFile, renderEnvFile } from '../generate-env.cjs';
import { databaseOf, planFromEnv, quoteIdentifier, redact } from '../migrate.cjs';
import { externalPackages, packageOf, runtimeManifest } from '../runtime-manifest.cjs';

const root = join(__dirname, '../../..');

describe('runtime-manifest', () => {
  const bundle = [
    'module.exports = require("@nestjs/core");',
    'module.exports = require("@prisma/client/runtime/client");',
    'module.exports = require("@modelcontextprotocol/sdk/server/mcp.js");',
    'module.exports = require("node:crypto");',
    'module.exports = require("crypto");',
    'module.exports = import("jose");',
    "const docs = `const crypto = require('crypto')`;",
  ].join('\n');

  it("lists the npm packages a webpack bundle leaves external, not Node built-ins or strings", () => {
    expect(externalPackages(bundle)).toEqual(['@modelcontextprotocol/sdk', '@nestjs/core', '@prisma/client', 'jose']);
    expect(packageOf('fs/promises')).toBeNull();
    expect(packageOf('./local')).toBeNull();
  });

  it('takes the ranges the workspace declares under dependencies', () => {
    const workspace = { name: 'w', version: '1.0.0', dependencies: { jose: '~6.2', pg: '~8.23' }, devDependencies: { jest: '30' } };
    expect(runtimeManifest(workspace, ['jose'], 'app').dependencies).toEqual({ jose: '~6.2' });
  });

  it('refuses a package that is only a dev dependency, or not declared at all', () => {
    const workspace = { name: 'w', version: '1.0.0', dependencies: { jose: '~6.2' }, devDependencies: { jest: '30' } };
    expect(() => runtimeManifest(workspace, ['jose', 'jest'], 'app')).toThrow(/jest.*devDependencies/);
    expect(() => runtimeManifest(workspace, ['left-pad'], 'app')).toThrow(/left-pad/);
  });

  it('keeps the Prisma CLI out of the apps: the migration image alone installs it', () => {
    const workspace = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(Object.keys(runtimeManifest(workspace, ['prisma', '@prisma/adapter-pg', 'pg'], 'migrate').dependencies)).toEqual([
      'prisma',
      '@prisma/adapter-pg',
      'pg',
    ]);
  });
});

describe('migrate', () => {
  const env = {
    AUTH_DATABASE_URL: 'postgresql://platform:s%40cret@postgres:5432/platform_auth',
    RESOURCE_DATABASE_URL: 'postgresql://platform:s%40cret@postgres:5432/platform_resource',
  };

  it('plans both schemas, creating their databases through the maintenance database', () => {
    const plan = planFromEnv(env);
    expect(plan.createDatabases).toBe(true);
    expect(plan.targets.map((target: { schema: string; name: string }) => [target.schema, target.name])).toEqual([
      ['auth', 'platform_auth'],
      ['resource', 'platform_resource'],
    ]);
    expect(plan.targets[0].adminUrl).toBe('postgresql://platform:s%40cret@postgres:5432/postgres');
  });

  it('refuses a missing URL, a non-PostgreSQL URL and a URL without a database', () => {
    expect(() => planFromEnv({ AUTH_DATABASE_URL: env.AUTH_DATABASE_URL })).toThrow('RESOURCE_DATABASE_URL must be set');
    expect(() => databaseOf('mysql://a:b@host/db')).toThrow(/not a PostgreSQL URL/);
    expect(() => databaseOf('postgresql://a:b@host')).toThrow(/no database name/);
    expect(() => planFromEnv({ ...env, MIGRATE_CREATE_DATABASES: 'maybe' })).toThrow(/MIGRATE_CREATE_DATABASES/);
    expect(planFromEnv({ ...env, MIGRATE_CREATE_DATABASES: 'false' }).createDatabases).toBe(false);
  });

  it('quotes identifiers and never logs a password', () => {
    expect(quoteIdentifier('we"ird')).toBe('"we""ird"');
    expect(redact(env.AUTH_DATABASE_URL)).toBe('postgresql://platform:***@postgres:5432/platform_auth');
  });
});

describe('generate-env', () => {
  const template = readFileSync(join(root, '.env.example'), 'utf8');

  it('fills every secret of .env.example and keeps the comments', () => {
    const text = renderEnvFile(template, generateSecrets());
    const values = parseEnvFile(text);
    expect(values['POSTGRES_PASSWORD']).toMatch(/^[0-9a-f]{48}$/);
    expect(values['INTROSPECTION_CLIENT_SECRET']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(values['OIDC_SIGNING_KEYS'] as string)).toHaveLength(1);
    expect(text.split('\n').filter((line) => line.startsWith('#'))).toEqual(template.split('\n').filter((line) => line.startsWith('#')));
  });

  it('writes the signing key set in single quotes (read literally by Compose v2 and 1.29)', () => {
    const line = renderEnvFile(template, generateSecrets())
      .split('\n')
      .find((text) => text.startsWith('OIDC_SIGNING_KEYS='));
    expect(line).toMatch(/^OIDC_SIGNING_KEYS='\[\{"kty":"RSA".*\}\]'$/);
  });

  it('makes an RS256 private JWK whose kid is its RFC 7638 thumbprint', () => {
    const jwk = generateSigningJwk();
    const thumbprint = createHash('sha256').update(JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n })).digest('base64url');
    expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: thumbprint, d: expect.any(String) });
  });

  it('has local http values for a trial, and refuses names .env.example does not document', () => {
    expect(parseEnvFile(renderEnvFile(template, localOverrides(3000)))).toMatchObject({
      NODE_ENV: 'development',
      PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    });
    expect(() => renderEnvFile(template, { UNDOCUMENTED: 'x' })).toThrow(/UNDOCUMENTED/);
  });
});

describe('compose URL passwords', () => {
  it('finds the password of a URL even around ${...} references', () => {
    expect(urlPassword('postgresql://${USER:-platform}:${PASSWORD:?set it (see .env.example)}@postgres:5432/db')).toBe(
      '${PASSWORD:?set it (see .env.example)}',
    );
    expect(urlPassword('postgresql://platform:hunter2@postgres:5432/db')).toBe('hunter2');
    expect(urlPassword('redis://redis:6379')).toBeNull();
    expect(urlPassword('http://host/path@x')).toBeNull();
  });
});

describe('test-compose.mjs', () => {
  it('says clearly that no Docker engine is reachable and exits 1', () => {
    const bin = mkdtempSync(join(tmpdir(), 'fake-docker-'));
    try {
      const docker = join(bin, 'docker');
      writeFileSync(docker, '#!/bin/sh\necho "Cannot connect to the Docker daemon at unix:///var/run/docker.sock." >&2\nexit 1\n');
      chmodSync(docker, 0o755);
      const result = spawnSync(process.execPath, [join(root, 'tools/containers/test-compose.mjs')], {
        env: { ...process.env, PATH: bin },
        encoding: 'utf8',
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('no Docker engine is reachable');
      expect(result.stderr).toContain('Cannot connect to the Docker daemon');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
