import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { type Dict, interpolate, InterpolationError, readStack } from './stack-file';
import { type AppDefinition, type AppName, APPS, checkStack, type StackCheckInput, type StackRule, type StackViolation } from './stack-rules';

const root = join(__dirname, '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/**
 * What each service reads and answers, from the apps' own schemas and Dockerfiles: tools/deploy's
 * definitions (the Kubernetes manifests are held to the same), loaded by path as that tool loads
 * the apps (no tool imports another).
 */
type PlatformModule = typeof import('../../deploy/src/platform');
const platform = (require(join(root, 'tools/deploy/src/platform')) as PlatformModule).loadPlatformDefinitions();
const apps = Object.fromEntries(
  APPS.map((app) => {
    const image = platform.images[app];
    const definition: AppDefinition = {
      variables: image.variables,
      imageEnv: image.imageEnv,
      configProblem: (env) => image.configProblem(env),
      port: image.port.fallback,
      liveness: image.probes?.liveness ?? '',
      shutdownTimeoutMs: (env) => (image.shutdownTimeoutMs as (env: Record<string, string>) => number)(env),
      shutdownDrainMs: (env) => (image.shutdownDrainMs as (env: Record<string, string>) => number)(env),
      ...(image.upstreamRefreshMs ? { upstreamRefreshMs: image.upstreamRefreshMs } : {}),
    };
    return [app, definition];
  }),
) as Record<AppName, AppDefinition>;

const { generateSecrets, parseEnvFile } = require(join(root, 'tools/containers/generate-env.cjs')) as typeof import('../../containers/generate-env.cjs');
/** What an operator's shell holds: the secrets of .env.example, an https origin; everything else by default. */
const OPERATOR_ENV = { ...generateSecrets(), PUBLIC_BASE_URL: 'https://academy.example.com' };

/** Documented for operators: .env.example's variables and those deploy/swarm/README.md's tables name. */
const documented = new Set([
  ...Object.keys(parseEnvFile(read('.env.example'))),
  ...[...read('deploy/swarm/README.md').matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1] as string),
]);

const STACK = read('deploy/swarm/stack.yml');
const PUBLISH = read('deploy/swarm/publish-host.yml');
const input = (overrides: Partial<StackCheckInput> = {}): StackCheckInput => ({
  stack: STACK,
  publish: PUBLISH,
  apps,
  nodeMemoryFloorMiB: platform.nodeMemoryFloorMiB,
  env: OPERATOR_ENV,
  documented,
  ...overrides,
});
const rulesOf = (violations: StackViolation[]) => [...new Set(violations.map((violation) => violation.rule))].sort();

describe('deploy/swarm', () => {
  it('follows every rule, as an operator deploys it (NODE_ENV production, an https origin)', () => {
    expect(checkStack(input())).toEqual([]);
  });

  it('follows every rule as the CI stage deploys it (NODE_ENV=test, an http origin, the demo accounts)', () => {
    expect(checkStack(input({ env: { ...OPERATOR_ENV, NODE_ENV: 'test', PUBLIC_BASE_URL: 'http://gateway:3000', SEED_DEMO_DATA: 'true' } }))).toEqual([]);
  });

  it('refuses to render without each secret and the public origin', () => {
    for (const variable of ['POSTGRES_PASSWORD', 'INTROSPECTION_CLIENT_SECRET', 'OIDC_SIGNING_KEYS', 'PUBLIC_BASE_URL']) {
      const env: Record<string, string> = { ...OPERATOR_ENV };
      delete env[variable];
      expect(() => readStack(STACK, env)).toThrow(new RegExp(variable));
    }
  });

  it('runs two replicas of each service unless told otherwise, and none while the first migration runs', () => {
    const services = (env: Record<string, string>) => readStack(STACK, { ...OPERATOR_ENV, ...env }).rendered['services'] as Record<string, { deploy: { replicas: unknown } }>;
    expect(APPS.map((app) => services({})[app]?.deploy.replicas)).toEqual(['2', '2', '2']);
    const none = { AUTH_SERVER_REPLICAS: '0', RESOURCE_SERVER_REPLICAS: '0', GATEWAY_REPLICAS: '0' };
    expect(APPS.map((app) => services(none)[app]?.deploy.replicas)).toEqual(['0', '0', '0']);
  });
});

describe('stack variables', () => {
  it('are substituted as docker/cli does', () => {
    const env = { SET: 'value', EMPTY: '' };
    expect(interpolate('${SET} $SET ${UNSET:-fallback} ${EMPTY:-fallback} ${EMPTY-kept} $${ESCAPED}', env)).toBe('value value fallback fallback  ${ESCAPED}');
    expect(() => interpolate('${UNSET:?set it}', env)).toThrow(InterpolationError);
    expect(() => interpolate('${EMPTY:?set it}', env)).toThrow('EMPTY: set it');
    expect(interpolate('${EMPTY?only when unset}', env)).toBe('');
  });
});

type Mutation = (stack: Dict, publish: Dict) => void;
const service = (stack: Dict, name: string) => (stack['services'] as Record<string, Dict>)[name] as Dict;
const deploy = (stack: Dict, name: string) => service(stack, name)['deploy'] as Dict;
const env = (stack: Dict, name: string) => service(stack, name)['environment'] as Record<string, string>;

function broken(mutate: Mutation, overrides: Partial<StackCheckInput> = {}) {
  // The files as YAML reads them (anchors resolved), changed, written back.
  const stack = JSON.parse(JSON.stringify(parse(STACK, { merge: true }))) as Dict;
  const publish = JSON.parse(JSON.stringify(parse(PUBLISH))) as Dict;
  mutate(stack, publish);
  return rulesOf(checkStack(input({ stack: stringify(stack), publish: stringify(publish), ...overrides })));
}

const NEGATIVE_CASES: [string, StackRule[], Mutation][] = [
  ['a newer file format than docker 20.10 reads', ['file-format'], (s) => (s['version'] = '3.9')],
  ['the migration as a service of the stack', ['services'], (s) => ((s['services'] as Dict)['migrate'] = { image: 'migrate', deploy: { endpoint_mode: 'dnsrr' } })],
  ['one auth-server replica', ['replicas'], (s) => (deploy(s, 'auth-server')['replicas'] = 1)],
  ['two PostgreSQL servers', ['replicas'], (s) => (deploy(s, 'postgres')['replicas'] = 2)],
  ['a virtual IP (needs IPVS)', ['dnsrr'], (s) => (deploy(s, 'resource-server')['endpoint_mode'] = 'vip')],
  ['a rollout that stops the old task first', ['rolling-start-first'], (s) => (deploy(s, 'gateway')['update_config'] = { ...(deploy(s, 'gateway')['update_config'] as Dict), order: 'stop-first' })],
  ['a rollout of two tasks at once', ['rolling-start-first'], (s) => (deploy(s, 'auth-server')['update_config'] = { ...(deploy(s, 'auth-server')['update_config'] as Dict), parallelism: 2 })],
  ['an update that fails forward', ['rolling-start-first'], (s) => (deploy(s, 'resource-server')['update_config'] = { ...(deploy(s, 'resource-server')['update_config'] as Dict), failure_action: 'continue' })],
  ['a PostgreSQL update that starts the new server first', ['data-stop-first'], (s) => (deploy(s, 'postgres')['update_config'] = { order: 'start-first' })],
  ['no healthcheck', ['healthcheck'], (s) => delete service(s, 'gateway')['healthcheck']],
  ['a healthcheck on another port', ['healthcheck'], (s) => (service(s, 'auth-server')['healthcheck'] = { test: ['CMD', 'node', '-e', "fetch('http://127.0.0.1:3002/healthz')"] })],
  ['no memory limit', ['resources'], (s) => delete (deploy(s, 'redis')['resources'] as Dict)['limits']],
  ['a Node service limited below what V8 may take', ['resources'], (s) => (deploy(s, 'gateway')['resources'] = { limits: { memory: '256M' }, reservations: { memory: '128M' } })],
  ['a reservation above the limit', ['resources'], (s) => (deploy(s, 'auth-server')['resources'] = { limits: { memory: '768M' }, reservations: { memory: '1G' } })],
  ['a grace period shorter than the shutdown', ['graceful-stop'], (s) => (service(s, 'resource-server')['stop_grace_period'] = '5s')],
  ['a drain that eats the grace period', ['graceful-stop'], (s) => (env(s, 'gateway')['SHUTDOWN_DRAIN_MS'] = '10000')],
  ['a drain the schema refuses', ['config-loads', 'graceful-stop'], (s) => (env(s, 'auth-server')['SHUTDOWN_DRAIN_MS'] = 'three seconds')],
  ["a gateway that looks at DNS again after the services have stopped listening", ['graceful-stop'], (s) => (env(s, 'gateway')['GATEWAY_DNS_REFRESH_MS'] = '10000')],
  ['a literal introspection secret', ['secrets-by-reference'], (s) => (env(s, 'resource-server')['INTROSPECTION_CLIENT_SECRET'] = 'a'.repeat(40))],
  ['a secret with a default', ['secrets-by-reference'], (s) => (env(s, 'auth-server')['OIDC_SIGNING_KEYS'] = '${OIDC_SIGNING_KEYS:-[]}')],
  ['a literal database password', ['secrets-by-reference'], (s) => (env(s, 'auth-server')['DATABASE_URL'] = 'postgresql://platform:hunter2@postgres:5432/platform_auth')],
  ['a literal PostgreSQL password', ['secrets-by-reference'], (s) => (env(s, 'postgres')['POSTGRES_PASSWORD'] = 'postgres')],
  ['a private key in the file', ['secrets-by-reference'], (s) => (s['x-key'] = '-----BEGIN PRIVATE KEY-----')],
  ['the signing keys given to the gateway', ['env-read-by-service', 'gateway-without-secrets'], (s) => (env(s, 'gateway')['OIDC_SIGNING_KEYS'] = '${OIDC_SIGNING_KEYS:?required}')],
  ['Redis given to the gateway', ['env-read-by-service', 'gateway-without-secrets'], (s) => (env(s, 'gateway')['REDIS_URL'] = 'redis://redis:6379')],
  ['a variable no service reads (a typo)', ['env-read-by-service'], (s) => (env(s, 'auth-server')['REDIS_ULR'] = 'redis://redis:6379')],
  ['a value the service refuses', ['config-loads'], (s) => (env(s, 'resource-server')['DATABASE_POOL_SIZE'] = 'many')],
  ['an http origin in production', ['config-loads'], () => undefined],
  ['the resource server calling another port', ['peer-urls'], (s) => (env(s, 'resource-server')['AUTH_SERVER_URL'] = 'http://auth-server:3002')],
  ['the gateway calling loopback', ['peer-urls'], (s) => (env(s, 'gateway')['RESOURCE_SERVER_URL'] = 'http://127.0.0.1:3002')],
  ['a replica without Redis', ['shared-redis'], (s) => delete env(s, 'resource-server')['REDIS_URL']],
  ['a backend network with a route out', ['networks'], (s) => ((s['networks'] as Record<string, Dict>)['backend'] = { ...((s['networks'] as Record<string, Dict>)['backend'] as Dict), internal: false })],
  ['an edge network clients cannot attach to', ['networks'], (s) => ((s['networks'] as Record<string, Dict>)['edge'] = { driver: 'overlay' })],
  ['the auth server on the edge network', ['networks'], (s) => (service(s, 'auth-server')['networks'] = ['edge', 'backend'])],
  ['trusting every address', ['trusted-proxies'], (s) => (env(s, 'auth-server')['TRUSTED_PROXIES'] = '0.0.0.0/0')],
  ['a port published in stack.yml', ['published-port'], (s) => (service(s, 'gateway')['ports'] = ['3000:3000'])],
  ['the published port through the ingress routing mesh', ['published-port'], (_s, p) => (((p['services'] as Dict)['gateway'] as Dict)['ports'] = [{ target: 3000, published: 443, mode: 'ingress' }])],
  ['two gateways per node on one host port', ['published-port'], (_s, p) => delete (((p['services'] as Dict)['gateway'] as Dict)['deploy'] as Dict)['placement']],
  ['an image of another tag', ['images'], (s) => (service(s, 'gateway')['image'] = 'localhost/course-platform/gateway:latest')],
  ['PostgreSQL free to move away from its volume', ['postgres-data'], (s) => delete deploy(s, 'postgres')['placement']],
  ['PostgreSQL without a volume', ['postgres-data'], (s) => delete service(s, 'postgres')['volumes']],
  ['an undocumented variable', ['variables-documented'], (s) => (env(s, 'auth-server')['LOG_LEVEL'] = '${AUTH_LOG_LEVEL:-info}')],
];

describe('the stack checker', () => {
  it.each(NEGATIVE_CASES)('catches %s', (_name, rules, mutate) => {
    const overrides = _name === 'an http origin in production' ? { env: { ...OPERATOR_ENV, PUBLIC_BASE_URL: 'http://academy.example.com' } } : {};
    expect(broken(mutate, overrides)).toEqual(expect.arrayContaining(rules));
  });

  it('has a negative case for every rule', () => {
    const rules: StackRule[] = [
      'file-format', 'services', 'replicas', 'dnsrr', 'rolling-start-first', 'data-stop-first', 'healthcheck', 'resources',
      'graceful-stop', 'secrets-by-reference', 'gateway-without-secrets', 'env-read-by-service', 'config-loads', 'peer-urls',
      'shared-redis', 'networks', 'trusted-proxies', 'published-port', 'images', 'postgres-data', 'variables-documented',
    ];
    expect(new Set(NEGATIVE_CASES.flatMap(([, caught]) => caught))).toEqual(new Set(rules));
  });
});
