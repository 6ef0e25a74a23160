import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { APP_IMAGES } from './apps';
import { checkCompose, checkVariablesDocumented, type ComposeRule, type ComposeViolation, memoryLimitMiB, referencedVariables } from './compose-rules';
import { parseStages } from './dockerfile-rules';
import { parseEnvFile } from '../generate-env.cjs';

const root = join(__dirname, '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const APPS = APP_IMAGES.map((image) => image.app);
const rulesOf = (violations: ComposeViolation[]) => [...new Set(violations.map((violation) => violation.rule))];

/** The final stage of the Dockerfile a service builds declares a HEALTHCHECK CMD. */
function dockerfileHasHealthcheck(build: Record<string, unknown>, readFile: (path: string) => string): boolean {
  const dockerfile = join(String(build['context'] ?? '.'), String(build['dockerfile'] ?? 'Dockerfile'));
  const stages = parseStages(readFile(dockerfile));
  const final = stages[stages.length - 1];
  return !!final?.instructions.some(
    (instruction) => instruction.getKeyword() === 'HEALTHCHECK' && /^CMD\b/i.test(instruction.getArgumentsContent() ?? ''),
  );
}

describe('docker-compose.yml', () => {
  const source = read('docker-compose.yml');
  const compose = parse(source) as Record<string, unknown>;

  it('follows every rule', () => {
    const violations = checkCompose(compose, source, { apps: APPS, imageHasHealthcheck: (_app, build) => dockerfileHasHealthcheck(build, read) });
    expect(violations).toEqual([]);
  });

  it('builds each app from its own Dockerfile in the workspace context, on NODE_IMAGE (default: the official image)', () => {
    const services = compose['services'] as Record<string, { build?: { context: string; dockerfile: string } }>;
    const args = { NODE_IMAGE: '${NODE_IMAGE:-node:24-bookworm-slim}' };
    for (const image of APP_IMAGES) expect(services[image.app]?.build).toEqual({ context: '.', dockerfile: image.dockerfile, args });
    expect(services['migrate']?.build).toEqual({ context: '.', dockerfile: 'tools/containers/migrate.Dockerfile', args });
  });

  it('takes the database images from variables whose defaults are the official images', () => {
    const services = compose['services'] as Record<string, { image?: string }>;
    expect(services['postgres']?.image).toBe('${POSTGRES_IMAGE:-postgres:16}');
    expect(services['redis']?.image).toBe('${REDIS_IMAGE:-redis:7}');
  });

  it('lets the services believe X-Forwarded-For from the fixed backend subnet only, which clients do not join', () => {
    const services = compose['services'] as Record<string, { environment?: Record<string, string>; networks?: string[] }>;
    const networks = compose['networks'] as Record<string, { internal?: boolean; ipam?: { config: { subnet: string }[] } }>;
    const subnet = '${PLATFORM_BACKEND_SUBNET:-172.30.240.0/24}';
    expect(networks['backend']?.ipam?.config).toEqual([{ subnet }]);
    expect(networks['backend']?.internal).toBe(true);
    for (const app of ['auth-server', 'resource-server']) {
      expect(services[app]?.environment?.['TRUSTED_PROXIES']).toBe(subnet);
      expect(services[app]?.networks).toEqual(['backend']);
    }
    expect(services['gateway']?.networks).toEqual(['edge', 'backend']);
  });

  it('tags the images it builds under localhost/, so `docker compose pull` never fetches a Docker Hub namesake', () => {
    const services = compose['services'] as Record<string, { build?: unknown; image?: string }>;
    for (const [name, service] of Object.entries(services).filter(([, service]) => service.build)) {
      expect(service.image).toBe(`localhost/course-platform/${name}:\${IMAGE_TAG:-local}`);
    }
  });

  it('stays within what docker-compose 1.29 (Debian 12) reads: no version or name key', () => {
    expect(Object.keys(compose).sort()).toEqual(['networks', 'services', 'volumes']);
  });

  it('documents every variable it uses in .env.example', () => {
    expect(checkVariablesDocumented(source, read('.env.example'))).toEqual([]);
    expect(referencedVariables(source)).toEqual(expect.arrayContaining(['POSTGRES_PASSWORD', 'INTROSPECTION_CLIENT_SECRET', 'OIDC_SIGNING_KEYS']));
  });

  it('requires the secrets (${VAR:?...}) and .env.example commits none of them', () => {
    const example = parseEnvFile(read('.env.example'));
    for (const secret of ['POSTGRES_PASSWORD', 'INTROSPECTION_CLIENT_SECRET', 'OIDC_SIGNING_KEYS']) {
      expect(example[secret]).toBe('');
      expect(source).toContain(`\${${secret}:?`);
      expect(source).not.toMatch(new RegExp(`\\$\\{${secret}(?!:\\?)`));
    }
  });
});

// A small compose file that follows every rule; each negative case breaks one of them.
const GOOD = `
services:
  postgres:
    image: postgres:16-bookworm
    environment:
      POSTGRES_PASSWORD: \${POSTGRES_PASSWORD:?required}
    volumes: [postgres-data:/var/lib/postgresql/data]
    healthcheck:
      test: ["CMD-SHELL", "pg_isready -h 127.0.0.1"]
  redis:
    image: redis:7
    command: ["redis-server", "--save", "", "--appendonly", "no"]
    healthcheck:
      test: ["CMD", "redis-cli", "ping"]
  migrate:
    build: { context: ., dockerfile: migrate.Dockerfile }
    environment:
      AUTH_DATABASE_URL: postgresql://platform:\${POSTGRES_PASSWORD:?required}@postgres:5432/auth
    depends_on:
      postgres: { condition: service_healthy }
    restart: "no"
  auth-server:
    build: { context: ., dockerfile: apps/auth-server/Dockerfile }
    environment:
      NODE_ENV: \${NODE_ENV:-production}
      DATABASE_URL: postgresql://platform:\${POSTGRES_PASSWORD:?required}@postgres:5432/auth
      REDIS_URL: redis://redis:6379
      RESOURCE_SERVER_URL: http://resource-server:3002
      INTROSPECTION_CLIENT_SECRET: \${INTROSPECTION_CLIENT_SECRET:?required}
      OIDC_SIGNING_KEYS: \${OIDC_SIGNING_KEYS:?required}
    depends_on:
      migrate: { condition: service_completed_successfully }
      postgres: { condition: service_healthy }
      redis: { condition: service_healthy }
    mem_limit: \${SERVICE_MEMORY_LIMIT:-768m}
  resource-server:
    build: { context: ., dockerfile: apps/resource-server/Dockerfile }
    environment:
      DATABASE_URL: postgresql://platform:\${POSTGRES_PASSWORD:?required}@postgres:5432/resource
      REDIS_URL: redis://redis:6379
      AUTH_SERVER_URL: http://auth-server:3001
    depends_on:
      migrate: { condition: service_completed_successfully }
      postgres: { condition: service_healthy }
      redis: { condition: service_healthy }
    mem_limit: 1g
  gateway:
    build: { context: ., dockerfile: apps/gateway/Dockerfile }
    environment:
      AUTH_SERVER_URL: http://auth-server:3001
      RESOURCE_SERVER_URL: http://resource-server:3002
    ports: ["127.0.0.1:3000:3000"]
    depends_on:
      auth-server: { condition: service_healthy }
      resource-server: { condition: service_healthy }
    mem_limit: 805306368
volumes:
  postgres-data:
`;

type Compose = { services: Record<string, Record<string, unknown>>; volumes: Record<string, unknown> };
const good = () => parse(GOOD) as Compose;
/** Every app image of the example has a HEALTHCHECK unless a case says otherwise. */
const withImageHealthchecks = (without: string[] = []) => ({
  apps: APPS,
  imageHasHealthcheck: (app: string) => !without.includes(app),
});

function check(mutate: (compose: Compose) => void, options = withImageHealthchecks()): ComposeViolation[] {
  const compose = good();
  mutate(compose);
  return checkCompose(compose, JSON.stringify(compose), options);
}

const s = (compose: Compose, name: string) => compose.services[name] as Record<string, unknown>;
const env = (compose: Compose, name: string) => s(compose, name)['environment'] as Record<string, string>;
const deps = (compose: Compose, name: string) => s(compose, name)['depends_on'] as Record<string, unknown>;

const NEGATIVE_CASES: [ComposeRule, string, (compose: Compose) => void][] = [
  ['postgres-official-image', 'an unofficial image', (c) => (s(c, 'postgres')['image'] = 'bitnami/postgresql:16')],
  ['postgres-official-image', 'an unpinned image', (c) => (s(c, 'postgres')['image'] = 'postgres:latest')],
  ['postgres-official-image', 'PostgreSQL 18 (Prisma 6 cannot introspect it)', (c) => (s(c, 'postgres')['image'] = 'postgres:18')],
  ['postgres-official-image', 'a variable whose default is a stand-in', (c) => (s(c, 'postgres')['image'] = '${POSTGRES_IMAGE:-course-platform-local/postgres:15}')],
  ['postgres-healthcheck', 'no healthcheck', (c) => delete s(c, 'postgres')['healthcheck']],
  ['postgres-named-volume', 'a bind mount', (c) => (s(c, 'postgres')['volumes'] = ['./pgdata:/var/lib/postgresql/data'])],
  ['postgres-named-volume', 'no volume', (c) => delete s(c, 'postgres')['volumes']],
  ['redis-official-image', 'an unpinned image', (c) => (s(c, 'redis')['image'] = 'redis')],
  ['redis-official-image', 'a variable without a default', (c) => (s(c, 'redis')['image'] = '${REDIS_IMAGE}')],
  ['redis-healthcheck', 'no healthcheck', (c) => delete s(c, 'redis')['healthcheck']],
  ['redis-persistence', 'persistence on, no volume', (c) => delete s(c, 'redis')['command']],
  ['migrate-job', 'no migrate service', (c) => {
    delete c.services['migrate'];
    delete deps(c, 'auth-server')['migrate'];
    delete deps(c, 'resource-server')['migrate'];
  }],
  ['migrate-job', 'migrate restarted forever', (c) => (s(c, 'migrate')['restart'] = 'always')],
  ['migrate-job', 'migrate not waiting for postgres', (c) => delete s(c, 'migrate')['depends_on']],
  ['migrate-before-apps', 'an app not waiting for migrate', (c) => delete deps(c, 'resource-server')['migrate']],
  ['migrate-before-apps', 'an app waiting for migrate to start only', (c) => (deps(c, 'auth-server')['migrate'] = { condition: 'service_healthy' })],
  ['infrastructure-healthy-first', 'an app not waiting for redis', (c) => delete deps(c, 'auth-server')['redis']],
  ['infrastructure-healthy-first', 'an app not waiting for postgres', (c) => delete deps(c, 'resource-server')['postgres']],
  ['gateway-waits-for-upstreams', 'the gateway not waiting for the auth server', (c) => delete deps(c, 'gateway')['auth-server']],
  ['waits-for-health-not-start', 'the short depends_on form', (c) => (s(c, 'gateway')['depends_on'] = ['auth-server', 'resource-server'])],
  ['no-secret-literals', 'a literal secret', (c) => (env(c, 'auth-server')['INTROSPECTION_CLIENT_SECRET'] = 'hunter2hunter2hunter2')],
  ['no-secret-literals', 'a literal password in a URL', (c) => (env(c, 'auth-server')['DATABASE_URL'] = 'postgresql://platform:hunter2@postgres:5432/auth')],
  ['no-secret-literals', 'a literal signing key', (c) => (env(c, 'auth-server')['OIDC_SIGNING_KEYS'] = '[{"kty":"RSA","d":"x"}]')],
  ['no-secret-literals', 'a literal postgres password', (c) => (env(c, 'postgres')['POSTGRES_PASSWORD'] = 'postgres')],
  ['app-healthcheck', 'no healthcheck anywhere', () => undefined],
  ['app-healthcheck', "the image's healthcheck disabled", (c) => (s(c, 'gateway')['healthcheck'] = { disable: true })],
  ['stateless-apps', 'uploads on a volume of the resource server', (c) => (s(c, 'resource-server')['volumes'] = ['resource-storage:/var/lib/platform/storage'])],
  ['apps-share-redis', 'a resource server without Redis', (c) => delete env(c, 'resource-server')['REDIS_URL']],
  ['apps-share-redis', 'two Redis', (c) => (env(c, 'resource-server')['REDIS_URL'] = 'redis://other-redis:6379')],
  ['production-by-default', 'development forced', (c) => (env(c, 'auth-server')['NODE_ENV'] = 'development')],
  ['only-gateway-published', 'PostgreSQL published', (c) => (s(c, 'postgres')['ports'] = ['5432:5432'])],
  ['only-gateway-published', 'the auth server published', (c) => (s(c, 'auth-server')['ports'] = ['3001:3001'])],
  ['app-memory-limit', 'no memory limit', (c) => delete s(c, 'resource-server')['mem_limit']],
  ['app-memory-limit', 'a limit under what V8 may take', (c) => (s(c, 'gateway')['mem_limit'] = '512m')],
  ['app-memory-limit', 'a variable whose default is too small', (c) => (s(c, 'auth-server')['mem_limit'] = '${SERVICE_MEMORY_LIMIT:-256m}')],
  ['app-memory-limit', 'an unreadable size', (c) => (s(c, 'auth-server')['mem_limit'] = 'lots')],
];

describe('the compose checker', () => {
  it('passes the good example', () => {
    expect(checkCompose(good(), GOOD, withImageHealthchecks())).toEqual([]);
  });

  it('accepts the database images as variables whose defaults are the official images', () => {
    expect(
      check((c) => {
        s(c, 'postgres')['image'] = '${POSTGRES_IMAGE:-postgres:16}';
        s(c, 'redis')['image'] = '${REDIS_IMAGE:-redis:7}';
      }),
    ).toEqual([]);
  });

  it.each(NEGATIVE_CASES)('catches a broken %s rule: %s', (rule, name, mutate) => {
    const options = name === 'no healthcheck anywhere' ? withImageHealthchecks(['gateway']) : withImageHealthchecks();
    expect(rulesOf(check(mutate, options))).toContain(rule);
  });

  it('reads memory sizes as compose does', () => {
    expect([memoryLimitMiB('768m'), memoryLimitMiB('1g'), memoryLimitMiB('1GB'), memoryLimitMiB(805306368), memoryLimitMiB('${SERVICE_MEMORY_LIMIT:-768m}'), memoryLimitMiB('524288k')]).toEqual([768, 1024, 1024, 768, 768, 512]);
    expect([memoryLimitMiB(undefined), memoryLimitMiB('lots'), memoryLimitMiB('${SERVICE_MEMORY_LIMIT}')]).toEqual([undefined, undefined, undefined]);
  });

  it('catches a private key anywhere in the text', () => {
    const source = `${GOOD}\nx-note: "-----BEGIN PRIVATE KEY-----"\n`;
    expect(rulesOf(checkCompose(parse(source), source, withImageHealthchecks()))).toEqual(['no-secret-literals']);
  });

  it('catches an undocumented variable (variables-documented)', () => {
    expect(checkVariablesDocumented('x: ${DOCUMENTED} ${FORGOTTEN:-1} $${ESCAPED}', 'DOCUMENTED=\n')).toEqual([
      { rule: 'variables-documented', message: expect.stringContaining('FORGOTTEN') },
    ]);
  });

  it('has a negative case for every rule', () => {
    const rules: ComposeRule[] = [
      'postgres-official-image',
      'postgres-healthcheck',
      'postgres-named-volume',
      'redis-official-image',
      'redis-healthcheck',
      'redis-persistence',
      'migrate-job',
      'migrate-before-apps',
      'infrastructure-healthy-first',
      'gateway-waits-for-upstreams',
      'waits-for-health-not-start',
      'no-secret-literals',
      'app-healthcheck',
      'stateless-apps',
      'apps-share-redis',
      'production-by-default',
      'only-gateway-published',
      'app-memory-limit',
    ];
    expect(new Set(NEGATIVE_CASES.map(([rule]) => rule))).toEqual(new Set(rules));
  });
});
