import { deployOf, type Dict, durationMs, environmentOf, isDict, memoryMiB, readStack, referencedVariables, servicesOf } from './stack-file';

/** Every rule deploy/swarm's stack files are held to; each violation names one. */
export type StackRule =
  | 'file-format'
  | 'services'
  | 'replicas'
  | 'dnsrr'
  | 'rolling-start-first'
  | 'data-stop-first'
  | 'healthcheck'
  | 'resources'
  | 'graceful-stop'
  | 'secrets-by-reference'
  | 'gateway-without-secrets'
  | 'env-read-by-service'
  | 'config-loads'
  | 'peer-urls'
  | 'shared-redis'
  | 'networks'
  | 'trusted-proxies'
  | 'published-port'
  | 'images'
  | 'postgres-data'
  | 'variables-documented';

export interface StackViolation {
  rule: StackRule;
  message: string;
}

/** What the rules know of each platform image (tools/deploy's definitions, read from the apps' own schemas). */
export interface AppDefinition {
  /** Every variable the process reads. */
  variables: ReadonlySet<string>;
  /** The image's ENV before the stack adds any. */
  imageEnv: Readonly<Record<string, string>>;
  /** Why the process would refuse this environment at start; undefined when it starts. */
  configProblem(env: Record<string, string>): string | undefined;
  port: number;
  liveness: string;
  /** SHUTDOWN_TIMEOUT_MS in an environment. */
  shutdownTimeoutMs(env: Record<string, string>): number;
  /** SHUTDOWN_DRAIN_MS in an environment (serving on after SIGTERM, before the deadline counts). */
  shutdownDrainMs(env: Record<string, string>): number;
  /** The gateway: GATEWAY_DNS_REFRESH_MS in an environment (how often it resolves the services' names again). */
  upstreamRefreshMs?(env: Record<string, string>): number;
}

export interface StackCheckInput {
  /** deploy/swarm/stack.yml */
  stack: string;
  /** deploy/swarm/publish-host.yml */
  publish: string;
  apps: Readonly<Record<AppName, AppDefinition>>;
  /** The least memory limit of a Node service container, in MiB. */
  nodeMemoryFloorMiB: number;
  /** The variables the deploying shell sets (secrets and the public origin): the stack is rendered with them. */
  env: Readonly<Record<string, string>>;
  /** Variables documented for operators (.env.example, deploy/swarm/README.md). */
  documented: ReadonlySet<string>;
}

export type AppName = 'auth-server' | 'resource-server' | 'gateway';
export const APPS: readonly AppName[] = ['auth-server', 'resource-server', 'gateway'];
const DATA_SERVICES = ['postgres', 'redis'] as const;
/** What the platform runs of each service on swarm. */
export const APP_REPLICAS = 2;
/**
 * swarm removes a stopping task from DNS, then waits this long before SIGTERM (moby's gossip
 * delay, outside stop_grace_period, which counts from SIGTERM).
 */
const SWARM_STOP_DELAY_MS = 2_000;
/** stop_grace_period beyond SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS: the process gives up and says why before SIGKILL. */
const STOP_MARGIN_MS = 2_000;
/** A DNS change reaching every gateway's next lookup (swarm's embedded DNS, nothing cached in the containers), with room. */
const DNS_PROPAGATION_MS = 1_000;
/** Environment variable names whose values are secrets (as compose's rules have them). */
const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|PRIVATE|CREDENTIAL|(^|_)KEYS?$)/i;
/** A whole value that is one required reference: `${VAR:?message}` or `${VAR?message}`. */
const REQUIRED_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*:?\?[^}]*\}$/;
/** Where each service reaches its peers: the variable, the stack service, its port. */
const PEERS: Readonly<Record<string, { service: string; port: number; scheme: RegExp }>> = {
  AUTH_SERVER_URL: { service: 'auth-server', port: 3001, scheme: /^http:$/ },
  RESOURCE_SERVER_URL: { service: 'resource-server', port: 3002, scheme: /^http:$/ },
  DATABASE_URL: { service: 'postgres', port: 5432, scheme: /^postgres(ql)?:$/ },
  REDIS_URL: { service: 'redis', port: 6379, scheme: /^rediss?:$/ },
};

const networksOf = (service: Dict): string[] => (Array.isArray(service['networks']) ? service['networks'].map(String) : isDict(service['networks']) ? Object.keys(service['networks']) : []);
const healthcheckTest = (service: Dict): string => {
  const healthcheck = service['healthcheck'];
  if (!isDict(healthcheck) || healthcheck['disable'] === true) return '';
  const test = healthcheck['test'];
  return Array.isArray(test) ? test.map(String).join(' ') : String(test ?? '');
};

/** The password of a URL with credentials, as written (a reference or a literal); null when none. */
function writtenPassword(url: string): string | null {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/]*)@/i.exec(url);
  if (!match) return null;
  const userinfo = match[1] as string;
  // The user part ends at the first `:` outside a reference.
  let depth = 0;
  for (let i = 0; i < userinfo.length; i += 1) {
    if (userinfo.startsWith('${', i)) depth += 1;
    else if (userinfo[i] === '}' && depth > 0) depth -= 1;
    else if (depth === 0 && userinfo[i] === ':') return userinfo.slice(i + 1);
  }
  return null;
}

/** Checks deploy/swarm/stack.yml and publish-host.yml. */
export function checkStack(input: StackCheckInput): StackViolation[] {
  const violations: StackViolation[] = [];
  const add = (rule: StackRule, message: string) => violations.push({ rule, message });
  let written: Dict;
  let rendered: Dict;
  try {
    ({ written, rendered } = readStack(input.stack, input.env));
  } catch (error) {
    return [{ rule: 'file-format', message: `stack.yml does not render: ${error instanceof Error ? error.message : error}` }];
  }
  const services = servicesOf(rendered);
  const writtenServices = servicesOf(written);

  // Debian 12's docker 20.10 reads compose file format 3.8 at most for stacks used here.
  if (String(written['version']) !== '3.8') add('file-format', `version "3.8" (what docker 20.10's stack deploy reads), found ${String(written['version'])}`);
  const expected = [...DATA_SERVICES, ...APPS].sort();
  if (JSON.stringify(Object.keys(services).sort()) !== JSON.stringify(expected)) {
    add('services', `the services are ${expected.join(', ')} (the migration runs before the deploy, not as a service); found ${Object.keys(services).sort().join(', ')}`);
  }

  for (const [name, service] of Object.entries(services)) {
    if (deployOf(service, 'endpoint_mode') !== 'dnsrr') add('dnsrr', `${name}: deploy.endpoint_mode dnsrr (no IPVS for virtual IPs; every task's address in DNS)`);
    if (!healthcheckTest(service)) add('healthcheck', `${name}: a healthcheck (a task counts as running, and takes traffic, once healthy)`);
    const limit = memoryMiB(deployOf(service, 'resources', 'limits', 'memory'));
    const reservation = memoryMiB(deployOf(service, 'resources', 'reservations', 'memory'));
    if (limit === undefined) add('resources', `${name}: deploy.resources.limits.memory`);
    if (reservation === undefined || (limit !== undefined && reservation > limit)) add('resources', `${name}: deploy.resources.reservations.memory, at most the limit`);
    if (service['ports'] !== undefined) add('published-port', `${name}: stack.yml publishes nothing (publish-host.yml adds the gateway's port)`);
  }

  for (const name of DATA_SERVICES) {
    const service = services[name];
    if (!service) continue;
    if (Number(deployOf(service, 'replicas')) !== 1) add('replicas', `${name}: one replica`);
    for (const config of ['update_config', 'rollback_config']) {
      if (deployOf(service, config, 'order') !== 'stop-first') add('data-stop-first', `${name}: deploy.${config}.order stop-first (never two servers on one data directory or one pub/sub)`);
    }
  }

  const postgres = services['postgres'];
  if (postgres) {
    const volumes = Array.isArray(postgres['volumes']) ? postgres['volumes'].map(String) : [];
    const declared = isDict(rendered['volumes']) ? Object.keys(rendered['volumes']) : [];
    if (!volumes.some((volume) => declared.includes(volume.split(':')[0] as string) && volume.split(':')[1] === '/var/lib/postgresql/data')) {
      add('postgres-data', 'postgres: /var/lib/postgresql/data on a named volume of the stack');
    }
    const constraints = deployOf(postgres, 'placement', 'constraints');
    if (!Array.isArray(constraints) || !constraints.some((constraint) => /^node\.(labels\.[\w.-]+|hostname|id)\s*==/.test(String(constraint)))) {
      add('postgres-data', 'postgres: placed on the node that holds its volume (a node label, hostname or id constraint)');
    }
    if (!/\bpg_isready\b/.test(healthcheckTest(postgres))) add('healthcheck', 'postgres: a healthcheck running pg_isready');
  }

  const backend = isDict(rendered['networks']) ? rendered['networks']['backend'] : undefined;
  const edge = isDict(rendered['networks']) ? rendered['networks']['edge'] : undefined;
  const backendSubnets = isDict(backend) && isDict(backend['ipam']) && Array.isArray(backend['ipam']['config']) ? backend['ipam']['config'].map((entry) => (isDict(entry) ? String(entry['subnet']) : '')) : [];
  if (!isDict(backend) || backend['driver'] !== 'overlay' || backend['internal'] !== true || backendSubnets.length !== 1) {
    add('networks', 'networks.backend: an internal overlay network with one fixed subnet (the services trust exactly it)');
  }
  if (!isDict(edge) || edge['driver'] !== 'overlay' || edge['internal'] === true || edge['attachable'] !== true) {
    add('networks', 'networks.edge: an attachable overlay network, not internal (a host-mode port needs the node\'s gateway bridge)');
  }

  const gatewayService = services['gateway'];
  let gatewayRefreshMs: number | undefined;
  try {
    gatewayRefreshMs = gatewayService && input.apps.gateway.upstreamRefreshMs?.({ ...input.apps.gateway.imageEnv, ...environmentOf(gatewayService) });
  } catch {
    gatewayRefreshMs = undefined;
  }

  for (const app of APPS) {
    const service = services[app];
    const writtenService = writtenServices[app];
    const definition = input.apps[app];
    if (!service || !writtenService) continue;
    const environment = environmentOf(service);
    const writtenEnvironment = environmentOf(writtenService);

    if (Number(deployOf(service, 'replicas')) !== APP_REPLICAS) add('replicas', `${app}: ${APP_REPLICAS} replicas by default (found ${String(deployOf(service, 'replicas'))})`);
    for (const config of ['update_config', 'rollback_config']) {
      const order = deployOf(service, config, 'order');
      const parallelism = Number(deployOf(service, config, 'parallelism') ?? 1);
      if (order !== 'start-first' || parallelism !== 1) add('rolling-start-first', `${app}: deploy.${config} one task at a time, start-first (capacity never drops)`);
    }
    if (deployOf(service, 'update_config', 'failure_action') !== 'rollback') add('rolling-start-first', `${app}: deploy.update_config.failure_action rollback`);

    const test = healthcheckTest(service);
    if (test && !(test.includes(`127.0.0.1:${definition.port}${definition.liveness}`) || test.includes(`localhost:${definition.port}${definition.liveness}`))) {
      add('healthcheck', `${app}: the healthcheck asks ${definition.liveness} on its own port ${definition.port} (liveness: swarm replaces an unhealthy task)`);
    }
    const limit = memoryMiB(deployOf(service, 'resources', 'limits', 'memory'));
    if (limit !== undefined && limit < input.nodeMemoryFloorMiB) add('resources', `${app}: a memory limit of at least ${input.nodeMemoryFloorMiB} MiB, above what V8 may take`);

    const startEnv = { ...definition.imageEnv, ...environment };
    const grace = durationMs(service['stop_grace_period'] ?? '10s');
    let shutdown: number | undefined;
    try {
      shutdown = definition.shutdownTimeoutMs(startEnv);
    } catch {
      shutdown = undefined;
    }
    // The drain (SHUTDOWN_DRAIN_MS, serving on after SIGTERM) comes before the shutdown's deadline.
    let drain: number | undefined;
    try {
      drain = definition.shutdownDrainMs(startEnv);
    } catch {
      drain = undefined;
    }
    if (grace === undefined || shutdown === undefined || drain === undefined || grace < drain + shutdown + STOP_MARGIN_MS) {
      add('graceful-stop', `${app}: stop_grace_period (${String(service['stop_grace_period'] ?? '10s')}) covers SHUTDOWN_DRAIN_MS (${drain ?? 'unreadable'} ms), SHUTDOWN_TIMEOUT_MS (${shutdown ?? 'unreadable'} ms) and ${STOP_MARGIN_MS} ms more`);
    }
    // The gateways drop a stopping task at their next look at DNS: it must still be listening then.
    const refresh = gatewayRefreshMs;
    if (app !== 'gateway' && refresh !== undefined && drain !== undefined && SWARM_STOP_DELAY_MS + drain < refresh + DNS_PROPAGATION_MS) {
      add('graceful-stop', `${app}: swarm's ${SWARM_STOP_DELAY_MS} ms before SIGTERM and SHUTDOWN_DRAIN_MS (${drain} ms) outlast the gateway's GATEWAY_DNS_REFRESH_MS (${refresh} ms) and ${DNS_PROPAGATION_MS} ms more: it would stop listening while a gateway still sends to it`);
    }

    for (const variable of Object.keys(environment)) {
      if (!definition.variables.has(variable)) add('env-read-by-service', `${app}: ${variable} is read by no part of the ${app}`);
    }
    const problem = definition.configProblem(startEnv);
    if (problem) add('config-loads', `${app} would not start with this environment: ${problem}`);

    for (const [variable, value] of Object.entries(writtenEnvironment)) {
      if (SECRET_NAME.test(variable) && !REQUIRED_REFERENCE.test(value)) add('secrets-by-reference', `${app}: ${variable} is a required reference (\${${variable}:?...}), never a value or a default`);
      const password = writtenPassword(value);
      if (password !== null && !REQUIRED_REFERENCE.test(password)) add('secrets-by-reference', `${app}: the password in ${variable} is a required reference`);
    }

    for (const [variable, peer] of Object.entries(PEERS)) {
      if (!(variable in environment)) continue;
      let url: URL | undefined;
      try {
        url = new URL(environment[variable] as string);
      } catch {
        url = undefined;
      }
      // dnsrr: the service's name and tasks.<service> both resolve to every task's address.
      if (!url || !peer.scheme.test(url.protocol) || (url.hostname !== peer.service && url.hostname !== `tasks.${peer.service}`) || Number(url.port) !== peer.port) {
        add('peer-urls', `${app}: ${variable} names the ${peer.service} service (or tasks.${peer.service}) on port ${peer.port} (found ${environment[variable]})`);
      }
    }
    if (app !== 'gateway' && !environment['REDIS_URL']) add('shared-redis', `${app}: REDIS_URL (replicas hear each other's revocations and share every limit through it)`);
    if (app !== 'gateway' && JSON.stringify(networksOf(service)) !== JSON.stringify(['backend'])) add('networks', `${app}: on the backend network only`);
    if (app !== 'gateway' && environment['TRUSTED_PROXIES'] !== backendSubnets[0]) {
      add('trusted-proxies', `${app}: TRUSTED_PROXIES is the backend network's subnet (${backendSubnets[0]}), which only the platform joins (found ${environment['TRUSTED_PROXIES']})`);
    }

    const image = String(writtenService['image'] ?? '');
    if (image !== `\${PLATFORM_IMAGE_PREFIX:-localhost/course-platform}/${app}:\${IMAGE_TAG:-local}`) {
      add('images', `${app}: image \${PLATFORM_IMAGE_PREFIX:-localhost/course-platform}/${app}:\${IMAGE_TAG:-local} (one tag for the release; found ${image})`);
    }
  }

  const gateway = services['gateway'];
  if (gateway) {
    const environment = environmentOf(gateway);
    for (const variable of Object.keys(environment)) {
      if (SECRET_NAME.test(variable) || variable === 'DATABASE_URL' || variable === 'REDIS_URL') add('gateway-without-secrets', `gateway: ${variable} (the gateway holds no secret and no datastore)`);
    }
    if (JSON.stringify(networksOf(gateway).sort()) !== JSON.stringify(['backend', 'edge'])) add('networks', 'gateway: on edge (clients) and backend (the services)');
  }
  for (const name of DATA_SERVICES) {
    const service = services[name];
    if (service && JSON.stringify(networksOf(service)) !== JSON.stringify(['backend'])) add('networks', `${name}: on the backend network only`);
  }
  for (const [name, service] of Object.entries(writtenServices)) {
    for (const [variable, value] of Object.entries(environmentOf(service))) {
      if (APPS.includes(name as AppName)) continue;
      if (SECRET_NAME.test(variable) && !REQUIRED_REFERENCE.test(value)) add('secrets-by-reference', `${name}: ${variable} is a required reference`);
    }
  }
  for (const source of [input.stack, input.publish]) {
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----|"kty"\s*:|\bkty:\s*RSA\b/.test(source)) add('secrets-by-reference', 'a private key is written in a stack file');
  }

  checkPublish(input, add);

  for (const variable of referencedVariables(`${input.stack}\n${input.publish}`)) {
    if (!input.documented.has(variable)) add('variables-documented', `\${${variable}} is documented neither in .env.example nor in deploy/swarm/README.md`);
  }
  return violations;
}

/** publish-host.yml: the gateway's port in host mode, one gateway per node, replaced stop-first. */
function checkPublish(input: StackCheckInput, add: (rule: StackRule, message: string) => void): void {
  let rendered: Dict;
  try {
    ({ rendered } = readStack(input.publish, input.env));
  } catch (error) {
    add('file-format', `publish-host.yml does not render: ${error instanceof Error ? error.message : error}`);
    return;
  }
  const services = servicesOf(rendered);
  if (JSON.stringify(Object.keys(services)) !== JSON.stringify(['gateway'])) add('published-port', 'publish-host.yml changes the gateway only');
  const gateway = services['gateway'];
  const ports = Array.isArray(gateway?.['ports']) ? gateway['ports'] : [];
  const port = ports[0];
  if (ports.length !== 1 || !isDict(port) || port['mode'] !== 'host' || Number(port['target']) !== input.apps.gateway.port || !Number.isInteger(Number(port['published']))) {
    add('published-port', `publish-host.yml: one port, the gateway's ${input.apps.gateway.port}, in host mode (the client's address is kept; no IPVS needed)`);
  }
  if (gateway && Number(deployOf(gateway, 'placement', 'max_replicas_per_node')) !== 1) add('published-port', 'publish-host.yml: one gateway per node (a node port is held by one task)');
  for (const config of ['update_config', 'rollback_config']) {
    if (gateway && deployOf(gateway, config, 'order') !== 'stop-first') add('published-port', `publish-host.yml: deploy.${config}.order stop-first (the new task needs the port the old one holds)`);
  }
}
