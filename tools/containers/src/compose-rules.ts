/** Every rule docker-compose.yml is held to; each violation names one. */
export type ComposeRule =
  | 'postgres-official-image'
  | 'postgres-healthcheck'
  | 'postgres-named-volume'
  | 'redis-official-image'
  | 'redis-healthcheck'
  | 'redis-persistence'
  | 'migrate-job'
  | 'migrate-before-apps'
  | 'infrastructure-healthy-first'
  | 'gateway-waits-for-upstreams'
  | 'waits-for-health-not-start'
  | 'no-secret-literals'
  | 'app-healthcheck'
  | 'stateless-apps'
  | 'apps-share-redis'
  | 'production-by-default'
  | 'only-gateway-published'
  | 'app-memory-limit'
  | 'variables-documented';

export interface ComposeViolation {
  rule: ComposeRule;
  message: string;
}

type Dict = Record<string, unknown>;

export interface ComposeCheckOptions {
  /** The app services (built from apps/<name>/Dockerfile). */
  apps: readonly string[];
  /** Whether a service's image declares a HEALTHCHECK (its Dockerfile's final stage). */
  imageHasHealthcheck(service: string, build: Dict): boolean;
}

/** PostgreSQL majors Prisma 6's schema engine handles (STACK.md: 18 breaks introspection). */
const POSTGRES_MAJORS = [15, 16, 17];

/**
 * The least memory limit of an app container, in MiB: what V8 may take (the images'
 * --max-old-space-size=384, a young generation of up to 128 MB on Node 24) and what it does not
 * count (the node binary ~56 MB, Prisma's wasm query compiler ~40 MB, malloc and compiled code
 * ~60 MB), so that a leak ends in V8's "heap out of memory" before the kernel's OOM kill.
 */
export const APP_MEMORY_FLOOR_MIB = 384 + 128 + 160;

/** Environment variable names whose values are secrets. */
const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|PRIVATE|CREDENTIAL|(^|_)KEYS?$)/i;

/** A whole value that is one `${VAR}` / `${VAR:?message}` reference. */
const REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?:(?::?[-?+])[^}]*)?\}$/;

/** Names referenced by `${VAR...}` anywhere in a text (not `$${...}`, an escaped dollar). */
export function referencedVariables(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1] as string);
  return [...names].sort();
}

const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null && !Array.isArray(value);

function servicesOf(compose: unknown): Record<string, Dict> {
  const services = isDict(compose) && isDict(compose['services']) ? compose['services'] : {};
  return Object.fromEntries(Object.entries(services).filter((entry): entry is [string, Dict] => isDict(entry[1])));
}

/** A service's environment as name → value, from the map or the `NAME=value` list form. */
export function environmentOf(service: Dict): Record<string, string> {
  const environment = service['environment'];
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const [name, ...rest] = String(entry).split('=');
        return [name ?? '', rest.length > 0 ? rest.join('=') : ''];
      }),
    );
  }
  if (isDict(environment)) return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, value == null ? '' : String(value)]));
  return {};
}

/** depends_on as service → condition (`service_started` for the short list form). */
export function dependenciesOf(service: Dict): Record<string, string> {
  const dependsOn = service['depends_on'];
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name) => [String(name), 'service_started']));
  if (isDict(dependsOn)) {
    return Object.fromEntries(
      Object.entries(dependsOn).map(([name, value]) => [name, isDict(value) ? String(value['condition'] ?? 'service_started') : 'service_started']),
    );
  }
  return {};
}

function healthcheckTest(service: Dict): string {
  const healthcheck = service['healthcheck'];
  if (!isDict(healthcheck) || healthcheck['disable'] === true) return '';
  const test = healthcheck['test'];
  return Array.isArray(test) ? test.map(String).join(' ') : String(test ?? '');
}

/**
 * `image: name:tag` of an official Docker Hub image (no registry, no namespace) with its major,
 * written out or as the default of a variable (`${POSTGRES_IMAGE:-postgres:16}`: a stand-in
 * under its own name can replace it, the default stays the official image).
 */
function officialImage(service: Dict | undefined, name: string): { major: number } | null {
  const written = String(service?.['image'] ?? '');
  const image = /^\$\{\w+:?-([^}]+)\}$/.exec(written)?.[1] ?? written;
  const match = new RegExp(`^(?:docker\\.io/)?(?:library/)?${name}:(\\d+)(?:[-.][\\w.-]*)?$`).exec(image);
  return match ? { major: Number(match[1]) } : null;
}

/**
 * A compose memory size (`768m`, `1g`, `805306368`, or `${VAR:-768m}`: its default) in MiB;
 * undefined when absent or unreadable.
 */
export function memoryLimitMiB(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const written = String(value).trim();
  const size = /^\$\{\w+:?-([^}]+)\}$/.exec(written)?.[1] ?? written;
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)b?$/i.exec(size.trim());
  if (!match) return undefined;
  const scale = { '': 1 / 2 ** 20, k: 1 / 2 ** 10, m: 1, g: 2 ** 10 }[(match[2] as string).toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(match[1]) * scale;
}

/** Named volumes mounted by a service: target path → volume name. */
function namedMounts(service: Dict, declared: Set<string>): Map<string, string> {
  const mounts = new Map<string, string>();
  const volumes = Array.isArray(service['volumes']) ? service['volumes'] : [];
  for (const volume of volumes) {
    let source: string | undefined;
    let target: string | undefined;
    if (typeof volume === 'string') [source, target] = volume.split(':');
    else if (isDict(volume) && (volume['type'] ?? 'volume') === 'volume') [source, target] = [String(volume['source'] ?? ''), String(volume['target'] ?? '')];
    if (source && target && declared.has(source)) mounts.set(target.replace(/\/+$/, ''), source);
  }
  return mounts;
}

function hostsIn(environment: Record<string, string>): Set<string> {
  const hosts = new Set<string>();
  for (const value of Object.values(environment)) {
    for (const match of value.matchAll(/[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s]*@)?([A-Za-z0-9_.-]+)/g)) hosts.add(match[1] as string);
  }
  return hosts;
}

/** Splits at the first `separator` outside `${...}` references. */
function splitOutsideReferences(text: string, separator: string): [string, string] | null {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text.startsWith('${', i)) depth += 1;
    else if (text[i] === '}' && depth > 0) depth -= 1;
    else if (depth === 0 && text[i] === separator) return [text.slice(0, i), text.slice(i + 1)];
  }
  return null;
}

/** The password of a URL with credentials (`scheme://user:password@host...`), or null. */
export function urlPassword(value: string): string | null {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value);
  if (!scheme) return null;
  const rest = value.slice(scheme[0].length);
  // The userinfo ends at the last `@` outside references (a reference may contain any text).
  let depth = 0;
  let at = -1;
  for (let i = 0; i < rest.length; i += 1) {
    if (rest.startsWith('${', i)) depth += 1;
    else if (rest[i] === '}' && depth > 0) depth -= 1;
    else if (depth === 0 && rest[i] === '@') at = i;
    else if (depth === 0 && rest[i] === '/' && at === -1) return null;
  }
  if (at === -1) return null;
  const credentials = splitOutsideReferences(rest.slice(0, at), ':');
  return credentials ? credentials[1] : null;
}

function urlPasswords(value: string): string[] {
  const password = urlPassword(value);
  return password === null || password === '' ? [] : [password];
}

/** Checks a parsed docker-compose.yml (and its raw text, for literal scans). */
export function checkCompose(compose: unknown, source: string, options: ComposeCheckOptions): ComposeViolation[] {
  const violations: ComposeViolation[] = [];
  const add = (rule: ComposeRule, message: string) => violations.push({ rule, message });
  const services = servicesOf(compose);
  const declaredVolumes = new Set(isDict(compose) && isDict(compose['volumes']) ? Object.keys(compose['volumes']) : []);
  const postgres = services['postgres'];
  const redis = services['redis'];
  const migrate = services['migrate'];

  const postgresImage = officialImage(postgres, 'postgres');
  if (!postgresImage || !POSTGRES_MAJORS.includes(postgresImage.major)) {
    add('postgres-official-image', `postgres: the official postgres image pinned to a major in ${POSTGRES_MAJORS.join('-')} (found ${String(postgres?.['image'])})`);
  }
  if (!postgres || !/\bpg_isready\b/.test(healthcheckTest(postgres))) add('postgres-healthcheck', 'postgres: a healthcheck running pg_isready');
  if (!postgres || !namedMounts(postgres, declaredVolumes).has('/var/lib/postgresql/data')) {
    add('postgres-named-volume', 'postgres: /var/lib/postgresql/data on a named volume declared under volumes:');
  }

  if (!officialImage(redis, 'redis')) add('redis-official-image', `redis: the official redis image pinned to a major (found ${String(redis?.['image'])})`);
  if (!redis || !/\bredis-cli\b.*\bping\b/.test(healthcheckTest(redis))) add('redis-healthcheck', 'redis: a healthcheck running redis-cli ping');
  const redisCommand = Array.isArray(redis?.['command']) ? (redis?.['command'] as unknown[]).map(String).join(' ') : String(redis?.['command'] ?? '');
  const noPersistence = /--save\s+(''|""|\s|$)/.test(`${redisCommand} `) && /--appendonly\s+no\b/.test(redisCommand);
  if (!redis || (!noPersistence && !namedMounts(redis, declaredVolumes).has('/data'))) {
    add('redis-persistence', 'redis: /data on a named volume, or persistence off (--save "" --appendonly no)');
  }

  if (!migrate) {
    add('migrate-job', 'a one-shot migrate service');
  } else {
    if (dependenciesOf(migrate)['postgres'] !== 'service_healthy') add('migrate-job', 'migrate: depends_on postgres with condition service_healthy');
    if (!['no', undefined].includes(migrate['restart'] as string | undefined)) add('migrate-job', `migrate: a one-shot job, restart "no" (found ${String(migrate['restart'])})`);
  }

  for (const [name, service] of Object.entries(services)) {
    for (const [dependency, condition] of Object.entries(dependenciesOf(service))) {
      if (!['service_healthy', 'service_completed_successfully'].includes(condition)) {
        add('waits-for-health-not-start', `${name}: depends_on ${dependency} must wait for service_healthy (or service_completed_successfully), not ${condition}`);
      }
    }
  }

  const infrastructure = Object.entries(services)
    .filter(([name, service]) => !service['build'] && name !== 'migrate')
    .map(([name]) => name);
  for (const app of options.apps) {
    const service = services[app];
    if (!service) {
      add('app-healthcheck', `${app}: missing service`);
      continue;
    }
    const environment = environmentOf(service);
    const dependencies = dependenciesOf(service);
    if ('DATABASE_URL' in environment && dependencies['migrate'] !== 'service_completed_successfully') {
      add('migrate-before-apps', `${app}: uses DATABASE_URL, so depends_on migrate with condition service_completed_successfully`);
    }
    for (const host of hostsIn(environment)) {
      if (infrastructure.includes(host) && dependencies[host] !== 'service_healthy') {
        add('infrastructure-healthy-first', `${app}: uses ${host}, so depends_on ${host} with condition service_healthy`);
      }
    }
    const build = isDict(service['build']) ? service['build'] : { context: service['build'] };
    const composeHealthcheck = healthcheckTest(service) !== '' && !/^NONE\b/.test(healthcheckTest(service));
    const disabled = isDict(service['healthcheck']) && service['healthcheck']['disable'] === true;
    if (disabled || (!composeHealthcheck && !options.imageHasHealthcheck(app, build))) {
      add('app-healthcheck', `${app}: a healthcheck here or a HEALTHCHECK in its image`);
    }
    const nodeEnv = environment['NODE_ENV'];
    if (nodeEnv !== undefined && !['production', '${NODE_ENV:-production}'].includes(nodeEnv)) {
      add('production-by-default', `${app}: NODE_ENV must be production unless .env says otherwise (\${NODE_ENV:-production}), found ${nodeEnv}`);
    }
    if (app !== 'gateway' && service['ports'] !== undefined) add('only-gateway-published', `${app}: only the gateway publishes a port`);
    const memory = memoryLimitMiB(service['mem_limit']);
    if (memory === undefined || memory < APP_MEMORY_FLOOR_MIB) {
      add('app-memory-limit', `${app}: mem_limit of at least ${APP_MEMORY_FLOOR_MIB} MiB, above what V8 may take (found ${String(service['mem_limit'] ?? 'none')})`);
    }
  }
  for (const name of infrastructure) {
    if (services[name]?.['ports'] !== undefined) add('only-gateway-published', `${name}: only the gateway publishes a port`);
  }

  const gateway = services['gateway'];
  if (gateway) {
    const dependencies = dependenciesOf(gateway);
    for (const upstream of options.apps.filter((app) => app !== 'gateway')) {
      if (dependencies[upstream] !== 'service_healthy') add('gateway-waits-for-upstreams', `gateway: depends_on ${upstream} with condition service_healthy`);
    }
  }

  // Every replica serves every request: what the services keep lives in PostgreSQL (uploads
  // included) and Redis, never on a container's own volume.
  for (const app of options.apps) {
    const volumes = services[app]?.['volumes'];
    if (Array.isArray(volumes) && volumes.length > 0) add('stateless-apps', `${app}: no volume (its state is in PostgreSQL and Redis)`);
  }
  // Revocations, rate limits and the introspection cache cross services and replicas through one Redis.
  const redisUrls = ['auth-server', 'resource-server'].filter((app) => services[app]).map((app) => environmentOf(services[app])['REDIS_URL']);
  if (redisUrls.some((url) => !url) || new Set(redisUrls).size > 1) {
    add('apps-share-redis', `auth-server and resource-server: the same REDIS_URL (found ${redisUrls.map((url) => url ?? 'unset').join(', ')})`);
  }

  for (const [name, service] of Object.entries(services)) {
    for (const [variable, value] of Object.entries(environmentOf(service))) {
      if (SECRET_NAME.test(variable) && value !== '' && !REFERENCE.test(value)) {
        add('no-secret-literals', `${name}: ${variable} is a literal; use a \${${variable}} reference to .env`);
      }
      for (const password of urlPasswords(value)) {
        if (!REFERENCE.test(password)) add('no-secret-literals', `${name}: ${variable} has a literal password; use a \${VAR} reference`);
      }
    }
  }
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----|"kty"\s*:|\bkty:\s*RSA\b/.test(source)) {
    add('no-secret-literals', 'a private key is written in the file');
  }
  return violations;
}

/** Every `${VAR}` of the compose file is assigned (documented) in the env example. */
export function checkVariablesDocumented(composeSource: string, envExample: string): ComposeViolation[] {
  const documented = new Set([...envExample.matchAll(/^\s*([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((match) => match[1]));
  return referencedVariables(composeSource)
    .filter((name) => !documented.has(name))
    .map((name) => ({ rule: 'variables-documented' as const, message: `\${${name}} is used in docker-compose.yml but not documented in .env.example` }));
}
