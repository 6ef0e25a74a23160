import { containerEnv, type ContainerEnv, literalValue, secretsOf } from './container-env';
import {
  allContainers,
  type Container,
  imageBaseName,
  type K8sObject,
  mapSelector,
  mebibytes,
  nameOf,
  type Probe,
  selects,
  type Workload,
  workloadsOf,
} from './k8s-objects';
import { peersFor, workloadsAmong, type Peer } from './network-reach';
import { type ImageDefinition, type PlatformDefinitions, type PlatformImage } from './platform';

/** Every rule the rendered manifests are held to, on top of the Kubernetes schemas; each violation names one. */
export type ManifestRule =
  | 'known-image'
  | 'one-namespace'
  | 'config-references'
  | 'env-read-by-service'
  | 'env-values'
  | 'config-loads'
  | 'secrets-by-reference'
  | 'gateway-without-secrets'
  | 'signing-keys-auth-only'
  | 'peer-urls'
  | 'headless-upstreams'
  | 'probes'
  | 'resources'
  | 'non-root'
  | 'replicas'
  | 'rolling-capacity'
  | 'graceful-stop'
  | 'topology-spread'
  | 'disruption-budget'
  | 'service-selectors'
  | 'one-public-entry'
  | 'public-origin'
  | 'network-default-deny'
  | 'network-selectors'
  | 'only-gateway-reaches-services'
  | 'gateway-trust-needs-policy'
  | 'release-images'
  | 'migration-before-rollout'
  | 'migration-job';

export interface ManifestViolation {
  rule: ManifestRule;
  /** `Kind/name` of the object at fault. */
  object: string;
  message: string;
}

export interface CheckOptions {
  platform: PlatformDefinitions;
  /** An overlay that is deployed as it is: its images must be a release's. */
  release: boolean;
}

/**
 * Variables that carry a secret (or a URL with a password in it): only ever from a Secret, key
 * by key. TOKEN is not among the words: ACCESS_TOKEN_TTL_SECONDS and friends are settings; nor
 * KEY inside a name (OIDC_SIGNING_KEY_ACTIVATION_SECONDS), only at its end.
 */
const SECRET_VARIABLE = /((^|_)(SECRET|PASSWORD|PASSWD|PRIVATE|CREDENTIALS?)(_|$)|(^|_)KEYS?$|DATABASE_URL$|^REDIS_URL$)/;

/**
 * What each Secret holds, in the shape the docs tell an operator to put there: the configuration
 * is loaded with these in place of the values the manifests cannot know.
 */
const SECRET_PLACEHOLDERS: Readonly<Record<string, string>> = {
  DATABASE_URL: 'postgresql://placeholder:placeholder@postgres.invalid:5432/placeholder',
  AUTH_DATABASE_URL: 'postgresql://placeholder:placeholder@postgres.invalid:5432/platform_auth',
  RESOURCE_DATABASE_URL: 'postgresql://placeholder:placeholder@postgres.invalid:5432/platform_resource',
  REDIS_URL: 'redis://:placeholder@redis.invalid:6379',
  OIDC_SIGNING_KEYS: '[]',
  INTROSPECTION_CLIENT_SECRET: 'placeholder-'.repeat(4),
};

/** The peers' internal URLs: each must name the Service in front of that peer. */
const PEER_URL_VARIABLES: Readonly<Record<string, PlatformImage>> = {
  AUTH_SERVER_URL: 'auth-server',
  RESOURCE_SERVER_URL: 'resource-server',
};

const GATEWAY_IMAGES: readonly PlatformImage[] = ['gateway', 'nginx-gateway'];

/**
 * How long the cluster DNS may go on giving a pod that has left a headless Service: the TTL of
 * CoreDNS's kubernetes plugin by default (5 s). A cluster whose DNS keeps its answers longer
 * (kubeadm writes `ttl 30`) needs a shorter TTL there or a longer preStop (README.md).
 */
const CLUSTER_DNS_TTL_SECONDS = 5;
/** An EndpointSlice change reaching the cluster DNS and kube-proxy on every node: about a second, twice that here. */
const ENDPOINT_PROPAGATION_SECONDS = 2;

/** Who may reach each service's HTTP port from inside the namespace (X-Forwarded-For is believed from the pod CIDR). */
const CALLERS: Readonly<Partial<Record<PlatformImage, readonly PlatformImage[]>>> = {
  // The gateway; the resource servers' introspection.
  'auth-server': [...GATEWAY_IMAGES, 'resource-server'],
  // The gateway; the auth server's sign-in pages (branding).
  'resource-server': [...GATEWAY_IMAGES, 'auth-server'],
};

interface PlatformContainer {
  workload: Workload;
  container: Container;
  definition: ImageDefinition;
  env: ContainerEnv;
}

/** The port a container listens on: its port variable as the manifests set it, the image's, or the default. */
function listenPort(entry: PlatformContainer): number {
  const variable = entry.definition.port.variable;
  if (!variable) return entry.definition.port.fallback;
  const source = entry.env.variables.get(variable);
  const value = (source && literalValue(source)) ?? entry.definition.imageEnv[variable];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : entry.definition.port.fallback;
}

/** The environment the process starts with: the image's, the manifests' literals, the Secrets' placeholders. */
function startingEnv(entry: PlatformContainer): Record<string, string> {
  const env: Record<string, string> = { ...entry.definition.imageEnv };
  for (const [name, source] of entry.env.variables) {
    const value = source.kind === 'secret' ? (SECRET_PLACEHOLDERS[name] ?? 'placeholder') : literalValue(source);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function probePort(probe: Probe | undefined, container: Container): number | undefined {
  const port = probe?.httpGet?.port;
  if (typeof port === 'number') return port;
  return container.ports?.find((entry) => entry.name === port)?.containerPort;
}

const imageOfWorkload = (workload: Workload) => imageBaseName(workload.pod.containers[0]?.image ?? '');

const isOpenPeer = (peer: Peer) => peer.kind === 'anyone' || peer.kind === 'addresses' || (peer.kind === 'namespaces' && !peer.pods);

function describePeer(peer: Peer): string {
  if (peer.kind === 'anyone') return `anyone${peer.policy ? ` (NetworkPolicy/${peer.policy})` : ' (no NetworkPolicy selects it)'}`;
  if (peer.kind === 'addresses') return `${peer.cidr} (NetworkPolicy/${peer.policy})`;
  if (peer.kind === 'namespaces') return `every pod of namespaces ${JSON.stringify(peer.namespaces)} (NetworkPolicy/${peer.policy})`;
  return `pods ${JSON.stringify(peer.selector)} (NetworkPolicy/${peer.policy})`;
}

/** What every check below reads, and where it reports. */
interface Context {
  objects: readonly K8sObject[];
  workloads: Workload[];
  deployments: Workload[];
  services: K8sObject[];
  /** Every container that runs one of the platform's images. */
  entries: PlatformContainer[];
  platform: PlatformDefinitions;
  report(rule: ManifestRule, object: K8sObject, message: string): void;
}

const configMapOf = (context: Context, name: string | undefined) => context.objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);
const volumeConfigMap = (volume: { name: string }) => (volume as { configMap?: { name: string } }).configMap?.name;

/** The Services in front of a platform image. */
const servicesOf = (context: Context, image: PlatformImage) =>
  context.services.filter((service) => context.workloads.some((workload) => imageOfWorkload(workload) === image && selects(mapSelector(service.spec?.['selector']), workload.labels)));

/** A Service of the render with this name (or the first label of a DNS name) and port. */
const serviceAt = (context: Context, host: string, port: number, among: readonly K8sObject[] = context.services) =>
  among.find((service) => service.metadata.name === host.split('.')[0] && (service.spec?.['ports'] as { port: number }[] | undefined)?.some((entry) => entry.port === port));

/** Every object in one namespace: a component's object left outside it is not found by the names, selectors and policies of the others. */
function checkNamespace({ objects, report }: Context): void {
  const declared = objects.find((object) => object.kind === 'Namespace')?.metadata.name;
  const expected = declared ?? objects.find((object) => object.kind !== 'Namespace')?.metadata.namespace;
  for (const object of objects.filter((candidate) => candidate.kind !== 'Namespace' && candidate.metadata.namespace !== expected)) {
    report('one-namespace', object, `is in namespace ${object.metadata.namespace ?? '(none)'}, the rest in ${expected ?? '(none)'}`);
  }
}

/** Each variable is one the image reads, with a value it accepts; secrets by reference; the whole configuration starts. */
function checkConfiguration(context: Context, entry: PlatformContainer): void {
  const { workload, container, definition, env } = entry;
  const where = `container ${container.name} (${definition.image})`;
  const report = (rule: ManifestRule, message: string) => context.report(rule, workload.object, `${where}${message}`);
  for (const name of env.missingConfigMaps) report('config-references', ` reads ConfigMap ${name}, which is not in the render`);
  for (const [name, source] of env.variables) {
    if (!definition.variables.has(name)) {
      report('env-read-by-service', ` sets ${name}, which ${definition.image} does not read (not in its environment schema)`);
      continue;
    }
    const value = literalValue(source);
    const problem = value === undefined ? undefined : definition.valueProblem(name, value);
    if (problem) report('env-values', `: ${name}=${value}: ${problem}`);
    if (SECRET_VARIABLE.test(name) && source.kind !== 'secret') report('secrets-by-reference', `: ${name} holds a secret and must come from a Secret (secretKeyRef), not from the manifests`);
  }
  for (const secret of env.wholeSecrets) {
    report('secrets-by-reference', ` takes Secret ${secret} whole (envFrom): name each variable with secretKeyRef, so that a key added to it later reaches no one by surprise`);
  }
  const problem = definition.configProblem(startingEnv(entry));
  if (problem) report('config-loads', ` would not start with this configuration: ${problem}`);
}

const isHeadless = (service: K8sObject) => service.spec?.['clusterIP'] === 'None';

/** A duration variable as the process reads it; undefined when it refuses it (env-values and config-loads say so). */
function readMs(read: ((env: Record<string, string>) => number) | undefined, env: Record<string, string>): number | undefined {
  try {
    return read?.(env);
  } catch {
    return undefined;
  }
}

/**
 * Which kind of Service a caller names. The Node gateway resolves its upstreams' names again
 * every GATEWAY_DNS_REFRESH_MS and balances each request over every address: a headless Service
 * (a ClusterIP would be one address, balanced per connection by kube-proxy). The services' fetch
 * keeps its connections per origin and resolves no name again, and nginx resolves its upstreams
 * once at start: a ClusterIP, whose kube-proxy sends each new connection to a ready pod (a
 * headless name would pin them to the pods that answered first, or those of nginx's start).
 */
function checkUpstreamKind(context: Context, entry: PlatformContainer, what: string, service: K8sObject): void {
  const { workload, container, definition } = entry;
  const where = `container ${container.name} (${definition.image}): ${what}`;
  const name = service.metadata.name;
  if (definition.image === 'gateway' && !isHeadless(service)) {
    context.report('headless-upstreams', workload.object, `${where} names Service ${name}, one virtual IP: the gateway balances each request over the addresses a name resolves to, so name a headless Service (clusterIP: None) in front of the same pods`);
  } else if (definition.image !== 'gateway' && isHeadless(service)) {
    const why = definition.image === 'nginx-gateway' ? 'nginx resolves it once, at start, and would keep the pods of that moment' : `${definition.image} keeps its connections per origin and never resolves the name again`;
    context.report('headless-upstreams', workload.object, `${where} names the headless Service ${name}: ${why}; name the ClusterIP Service (kube-proxy sends each new connection to a ready pod)`);
  }
}

/** The peers' internal URLs (and nginx's upstreams) name the Services in front of those peers, of the kind each caller needs. */
function checkPeerUrls(context: Context, entry: PlatformContainer): void {
  const { workload, container, definition, env } = entry;
  const where = `container ${container.name} (${definition.image})`;
  for (const [variable, peer] of Object.entries(PEER_URL_VARIABLES)) {
    if (!definition.variables.has(variable)) continue;
    const source = env.variables.get(variable);
    const value = source && literalValue(source);
    if (value === undefined) {
      context.report('peer-urls', workload.object, `${where} reads ${variable} and the manifests do not set it (its default is loopback, nothing in a pod)`);
      continue;
    }
    const url = URL.canParse(value) ? new URL(value) : undefined;
    const port = url ? Number(url.port || (url.protocol === 'https:' ? 443 : 80)) : NaN;
    const service = url && serviceAt(context, url.hostname, port, servicesOf(context, peer));
    if (!service) context.report('peer-urls', workload.object, `${where}: ${variable}=${value} names no Service in front of ${peer} on that port`);
    else checkUpstreamKind(context, entry, `${variable}=${value}`, service);
  }
  if (definition.image !== 'nginx-gateway') return;
  for (const volume of workload.pod.volumes ?? []) {
    for (const conf of Object.values(configMapOf(context, volumeConfigMap(volume))?.data ?? {})) {
      for (const [, host, port] of conf.matchAll(/^\s*server ([A-Za-z0-9.-]+):(\d+)/gm)) {
        const service = serviceAt(context, host as string, Number(port));
        if (!service) context.report('peer-urls', workload.object, `${where}: nginx's upstream ${host}:${port} names no Service of the render`);
        else checkUpstreamKind(context, entry, `nginx's upstream ${host}:${port}`, service);
      }
    }
  }
}

/** Liveness and readiness (and startup) on the image's own paths, on the port it listens on. */
function checkProbes(context: Context, entry: PlatformContainer): void {
  const { workload, container, definition } = entry;
  if (!definition.probes || workload.object.kind !== 'Deployment') return;
  const where = `container ${container.name} (${definition.image})`;
  const port = listenPort(entry);
  const probes: [string, Probe | undefined, string][] = [
    ['livenessProbe', container.livenessProbe, definition.probes.liveness],
    ['readinessProbe', container.readinessProbe, definition.probes.readiness],
    ...(container.startupProbe ? [['startupProbe', container.startupProbe, definition.probes.liveness] as [string, Probe, string]] : []),
  ];
  for (const [kind, probe, path] of probes) {
    if (probe?.httpGet?.path !== path) context.report('probes', workload.object, `${where}: ${kind} must GET ${path} (${definition.image}'s endpoint), not ${probe?.httpGet?.path ?? 'nothing'}`);
    const target = probePort(probe, container);
    if (probe && target !== port) context.report('probes', workload.object, `${where}: ${kind} probes port ${String(probe.httpGet?.port)} (${target ?? 'no such port'}); the process listens on ${port}`);
  }
  if (!container.ports?.some((entry) => entry.containerPort === port)) context.report('probes', workload.object, `${where} listens on ${port} and declares no such containerPort`);
}

/** Requests for scheduling, a memory limit, and for Node above what V8 may take. */
function checkResources(context: Context, entry: PlatformContainer): void {
  const { workload, container, definition } = entry;
  const where = `container ${container.name} (${definition.image})`;
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  if (!requests['cpu'] || !requests['memory']) context.report('resources', workload.object, `${where}: requests of cpu and memory are required (scheduling)`);
  const limit = mebibytes(limits['memory']);
  if (limit === undefined) {
    context.report('resources', workload.object, `${where}: a memory limit is required`);
    return;
  }
  const { nodeImages, nodeMemoryFloorMiB } = context.platform;
  if (nodeImages.includes(definition.image) && limit < nodeMemoryFloorMiB) {
    context.report('resources', workload.object, `${where}: memory limit ${limits['memory']} is below ${nodeMemoryFloorMiB} MiB, what V8 may take in these images (a leak would end in an OOM kill, not V8's own error)`);
  }
  const request = mebibytes(requests['memory']);
  if (request !== undefined && request > limit) context.report('resources', workload.object, `${where}: memory request ${requests['memory']} above its limit ${limits['memory']}`);
}

/** Non-root with a numeric user, no privilege escalation, no capabilities, read-only root, RuntimeDefault seccomp. */
function checkSecurityContext(context: Context, entry: PlatformContainer): void {
  const { workload, container, definition } = entry;
  const report = (message: string) => context.report('non-root', workload.object, `container ${container.name} (${definition.image}): ${message}`);
  const pod = workload.pod.securityContext ?? {};
  const own = container.securityContext ?? {};
  if ((own.runAsNonRoot ?? pod.runAsNonRoot) !== true) report('runAsNonRoot must be true');
  const user = own.runAsUser ?? pod.runAsUser;
  if (typeof user !== 'number' || user === 0) report('a numeric non-zero runAsUser is required (the images name their user, which the kubelet cannot check)');
  if (own.allowPrivilegeEscalation !== false) report('allowPrivilegeEscalation must be false');
  if (own.readOnlyRootFilesystem !== true) report('readOnlyRootFilesystem must be true');
  if (!own.capabilities?.drop?.includes('ALL') || (own.capabilities.add ?? []).length > 0) report('capabilities must drop ALL and add none');
  if ((own.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault') report('seccompProfile RuntimeDefault is required');
}

/** What the pod as a whole is given: no API token, no Service variables, only ConfigMaps the render holds. */
function checkPods(context: Context): void {
  for (const workload of context.workloads) {
    const object = workload.object;
    if (workload.pod.automountServiceAccountToken !== false) context.report('non-root', object, 'automountServiceAccountToken must be false (nothing here calls the Kubernetes API)');
    if (workload.pod.enableServiceLinks !== false) context.report('env-read-by-service', object, 'enableServiceLinks must be false (the Services would add <NAME>_PORT=tcp://... variables no schema expects)');
    for (const volume of workload.pod.volumes ?? []) {
      const name = volumeConfigMap(volume);
      if (name && !configMapOf(context, name)) context.report('config-references', object, `volume ${volume.name} mounts ConfigMap ${name}, which is not in the render`);
    }
  }
}

/** No Secret in the manifests; none in the gateway; the signing keys in the auth server alone. */
function checkSecrets(context: Context): void {
  for (const object of context.objects.filter((candidate) => candidate.kind === 'Secret')) {
    context.report('secrets-by-reference', object, 'a Secret in the manifests is a secret in git: create it in the cluster and reference it');
  }
  for (const workload of context.workloads.filter((candidate) => GATEWAY_IMAGES.includes(imageOfWorkload(candidate) as PlatformImage))) {
    const secrets = secretsOf(workload.pod);
    if (secrets.length > 0) context.report('gateway-without-secrets', workload.object, `the gateway reads Secret ${secrets.join(', ')}: it needs none (no database, no signing key)`);
  }
  const signingSecrets = new Set<string>();
  for (const entry of context.entries) {
    for (const name of ['OIDC_SIGNING_KEYS', 'OIDC_SIGNING_KEYS_FILE']) {
      const source = entry.env.variables.get(name);
      if (!source) continue;
      if (entry.definition.image !== 'auth-server') context.report('signing-keys-auth-only', entry.workload.object, `${entry.container.name} (${entry.definition.image}) gets ${name}: only the auth server holds signing keys`);
      else if (source.kind === 'secret') signingSecrets.add(source.secret);
    }
  }
  for (const workload of context.workloads.filter((candidate) => imageOfWorkload(candidate) !== 'auth-server')) {
    for (const secret of secretsOf(workload.pod).filter((name) => signingSecrets.has(name))) {
      context.report('signing-keys-auth-only', workload.object, `reads Secret ${secret}, which holds the signing keys`);
    }
  }
}

/**
 * The workloads the Node gateway reaches through a headless Service, with the longest time its
 * view of their addresses may lag: the cluster DNS's answer lifetime, the gateway's refresh
 * (GATEWAY_DNS_REFRESH_MS) and the endpoints' propagation, in seconds.
 */
function gatewayViewLag(context: Context): Map<Workload, number> {
  const lag = new Map<Workload, number>();
  for (const entry of context.entries.filter((candidate) => candidate.definition.upstreamRefreshMs)) {
    const refreshMs = readMs(entry.definition.upstreamRefreshMs, startingEnv(entry));
    if (refreshMs === undefined) continue;
    const seconds = CLUSTER_DNS_TTL_SECONDS + Math.ceil(refreshMs / 1000) + ENDPOINT_PROPAGATION_SECONDS;
    for (const [variable, peer] of Object.entries(PEER_URL_VARIABLES)) {
      const source = entry.env.variables.get(variable);
      const value = source && literalValue(source);
      if (!value || !URL.canParse(value)) continue;
      const url = new URL(value);
      const service = serviceAt(context, url.hostname, Number(url.port || (url.protocol === 'https:' ? 443 : 80)), servicesOf(context, peer));
      if (!service || !isHeadless(service)) continue;
      for (const workload of context.deployments.filter((candidate) => selects(mapSelector(service.spec?.['selector']), candidate.labels))) {
        lag.set(workload, Math.max(lag.get(workload) ?? 0, seconds));
      }
    }
  }
  return lag;
}

/** Replicas, a rollout that keeps capacity, a graceful stop, spread over nodes, one disruption budget each. */
function checkRollout(context: Context): void {
  const budgets = context.objects.filter((object) => object.kind === 'PodDisruptionBudget');
  const viewLag = gatewayViewLag(context);
  for (const deployment of context.deployments) {
    const object = deployment.object;
    const replicas = object.spec?.['replicas'];
    if (typeof replicas !== 'number' || replicas < 2) context.report('replicas', object, `replicas must be at least 2, got ${JSON.stringify(replicas)}`);
    const strategy = object.spec?.['strategy'] ?? {};
    const rolling = strategy.rollingUpdate ?? {};
    if (strategy.type !== 'RollingUpdate' || rolling.maxUnavailable !== 0 || rolling.maxSurge !== 1) {
      context.report('rolling-capacity', object, `a rollout must never drop capacity: RollingUpdate with maxUnavailable 0 and maxSurge 1, got ${JSON.stringify(strategy)}`);
    }
    for (const container of deployment.pod.containers) {
      const preStop = container.lifecycle?.preStop;
      if (!preStop) {
        context.report('graceful-stop', object, `container ${container.name}: a preStop pause is required (it keeps serving while its endpoint is withdrawn everywhere)`);
        continue;
      }
      const pause = preStop.sleep?.seconds ?? 0;
      const grace = deployment.pod.terminationGracePeriodSeconds ?? 30;
      const entry = context.entries.find((candidate) => candidate.container === container);
      const env = entry && startingEnv(entry);
      // After SIGTERM: the drain (serving on, not ready), then closing within the deadline.
      const drain = ((env && readMs(entry.definition.shutdownDrainMs, env)) ?? 0) / 1000;
      const deadline = ((env && readMs(entry.definition.shutdownTimeoutMs, env)) ?? 0) / 1000;
      if (grace < pause + Math.ceil(drain + deadline) + 1) {
        context.report(
          'graceful-stop',
          object,
          `container ${container.name}: terminationGracePeriodSeconds ${grace} must cover the preStop pause (${pause} s), SHUTDOWN_DRAIN_MS (${drain} s), SHUTDOWN_TIMEOUT_MS (${deadline} s) and a second more`,
        );
      }
      const lag = viewLag.get(deployment);
      if (entry && lag !== undefined && pause < lag) {
        context.report(
          'graceful-stop',
          object,
          `container ${container.name}: the preStop pause (${pause} s) must outlast the gateway's view of a leaving pod through the headless Service: the cluster DNS's ${CLUSTER_DNS_TTL_SECONDS} s, GATEWAY_DNS_REFRESH_MS and ${ENDPOINT_PROPAGATION_SECONDS} s of propagation, ${lag} s`,
        );
      }
    }
    const spread = (deployment.pod.topologySpreadConstraints ?? []).some((constraint) => constraint.topologyKey === 'kubernetes.io/hostname' && selects(constraint.labelSelector, deployment.labels));
    if (!spread) context.report('topology-spread', object, 'a topologySpreadConstraint over kubernetes.io/hostname selecting its own pods is required (a lost node takes one replica)');
    const own = budgets.filter((budget) => selects(budget.spec?.['selector'], deployment.labels));
    if (own.length !== 1) context.report('disruption-budget', object, `exactly one PodDisruptionBudget must select its pods, found ${own.length}`);
    for (const budget of own) {
      const { maxUnavailable, minAvailable } = budget.spec ?? {};
      if (typeof replicas === 'number' && ((typeof maxUnavailable === 'number' && maxUnavailable >= replicas) || (typeof minAvailable === 'number' && minAvailable >= replicas))) {
        context.report('disruption-budget', budget, `with ${replicas} replicas it must leave one available and still let one go`);
      }
    }
  }
  for (const budget of budgets) {
    const selected = context.deployments.filter((deployment) => selects(budget.spec?.['selector'], deployment.labels));
    if (selected.length !== 1) context.report('disruption-budget', budget, `must select exactly one Deployment's pods, selects ${selected.length}`);
  }
}

/** Each Service selects one workload and its ports; only the gateway is reached from outside. */
function checkServices(context: Context): void {
  for (const service of context.services) {
    const selected = context.workloads.filter((workload) => selects(mapSelector(service.spec?.['selector']), workload.labels));
    const target = selected[0];
    if (selected.length !== 1 || !target) {
      context.report('service-selectors', service, `its selector ${JSON.stringify(service.spec?.['selector'])} must match exactly one Deployment's pod labels, matches ${selected.length}`);
      continue;
    }
    const ports = target.pod.containers.flatMap((container) => container.ports ?? []);
    for (const port of (service.spec?.['ports'] as { port: number; targetPort?: number | string }[] | undefined) ?? []) {
      const targetPort = port.targetPort ?? port.port;
      if (!ports.some((entry) => entry.name === targetPort || entry.containerPort === targetPort)) context.report('service-selectors', service, `targetPort ${targetPort} is no port of ${nameOf(target.object)}`);
    }
    const type = service.spec?.['type'] ?? 'ClusterIP';
    if (type !== 'ClusterIP' && !GATEWAY_IMAGES.includes(imageOfWorkload(target) as PlatformImage)) {
      context.report('one-public-entry', service, `type ${type} exposes ${nameOf(target.object)}: only the gateway is reached from outside`);
    }
  }
  const gatewayServices = new Set(GATEWAY_IMAGES.flatMap((image) => servicesOf(context, image).map((service) => service.metadata.name)));
  for (const ingress of context.objects.filter((object) => object.kind === 'Ingress')) {
    const backends: string[] = [];
    const defaultBackend = ingress.spec?.['defaultBackend']?.service?.name;
    if (defaultBackend) backends.push(defaultBackend);
    for (const rule of ingress.spec?.['rules'] ?? []) for (const path of rule.http?.paths ?? []) backends.push(path.backend?.service?.name);
    for (const backend of backends.filter((name) => !gatewayServices.has(name))) context.report('one-public-entry', ingress, `sends traffic to Service ${backend}: only the gateway is reached from outside`);
    // The issuer and the resource URI are PUBLIC_BASE_URL: the Ingress must answer on that host, with TLS.
    for (const origin of publicOrigins(context)) {
      const hosts: string[] = (ingress.spec?.['rules'] ?? []).map((rule: { host?: string }) => rule.host ?? '*');
      const tlsHosts: string[] = (ingress.spec?.['tls'] ?? []).flatMap((entry: { hosts?: string[] }) => entry.hosts ?? []);
      if (!hosts.every((host) => host === origin.hostname) || (origin.protocol === 'https:' && !tlsHosts.includes(origin.hostname))) {
        context.report('public-origin', ingress, `answers on ${hosts.join(', ')} (TLS: ${tlsHosts.join(', ') || 'none'}), while PUBLIC_BASE_URL is ${origin.origin}`);
      }
    }
  }
}

/** The public origins the platform's containers are given (PUBLIC_BASE_URL): one, when the manifests agree. */
function publicOrigins(context: Context): URL[] {
  const values = new Set<string>();
  for (const entry of context.entries) {
    const source = entry.env.variables.get('PUBLIC_BASE_URL');
    const value = source && literalValue(source);
    if (value && URL.canParse(value)) values.add(new URL(value).origin);
  }
  return [...values].map((value) => new URL(value));
}

/** Closed by default; selectors that select; the services reached by the gateway (and each other) alone; a trusting gateway reached by its proxy alone. */
function checkNetwork(context: Context): void {
  const { objects, workloads } = context;
  for (const workload of workloads) {
    for (const direction of ['Ingress', 'Egress'] as const) {
      const closed = objects.some(
        (object) => object.kind === 'NetworkPolicy' && selects(object.spec?.['podSelector'], workload.labels) && (object.spec?.['policyTypes'] ?? ['Ingress']).includes(direction),
      );
      if (!closed) context.report('network-default-deny', workload.object, `no NetworkPolicy selects its pods for ${direction}: everything is allowed that way`);
    }
  }
  for (const policy of objects.filter((object) => object.kind === 'NetworkPolicy')) {
    if (!workloads.some((workload) => selects(policy.spec?.['podSelector'], workload.labels))) context.report('network-selectors', policy, 'its podSelector selects no pod of the render');
    for (const rule of [...(policy.spec?.['ingress'] ?? []), ...(policy.spec?.['egress'] ?? [])]) {
      for (const peer of [...(rule.from ?? []), ...(rule.to ?? [])]) {
        if (peer.podSelector && !peer.namespaceSelector && !workloads.some((workload) => selects(peer.podSelector, workload.labels))) {
          context.report('network-selectors', policy, `a peer's podSelector ${JSON.stringify(peer.podSelector)} matches no pod of the render`);
        }
      }
    }
  }
  for (const entry of context.entries.filter((candidate) => candidate.workload.object.kind === 'Deployment' && CALLERS[candidate.definition.image])) {
    const allowed = CALLERS[entry.definition.image] ?? [];
    const port = listenPort(entry);
    const peers = peersFor(objects, entry.workload, 'Ingress', port);
    for (const peer of peers.filter(isOpenPeer)) context.report('only-gateway-reaches-services', entry.workload.object, `port ${port} is open to ${describePeer(peer)}: it believes X-Forwarded-For from the pod CIDR`);
    for (const caller of workloadsAmong(peers, workloads)) {
      if (!allowed.includes(imageOfWorkload(caller) as PlatformImage)) context.report('only-gateway-reaches-services', entry.workload.object, `${nameOf(caller.object)} may reach port ${port}: only ${allowed.join(', ')} may`);
    }
  }
  for (const entry of context.entries.filter((candidate) => candidate.workload.object.kind === 'Deployment' && GATEWAY_IMAGES.includes(candidate.definition.image))) {
    const trust = entry.env.variables.get('GATEWAY_TRUST_PROXY');
    const trustValue = trust ? literalValue(trust) : undefined;
    const nginxTrusts = (entry.workload.pod.volumes ?? []).some((volume) => Object.values(configMapOf(context, volumeConfigMap(volume))?.data ?? {}).some((conf) => /^\s*set_real_ip_from /m.test(conf)));
    const trusts = entry.definition.image === 'gateway' ? trustValue !== undefined && trustValue !== 'false' : nginxTrusts;
    if (!trusts) continue;
    for (const peer of peersFor(objects, entry.workload, 'Ingress', listenPort(entry)).filter(isOpenPeer)) {
      context.report('gateway-trust-needs-policy', entry.workload.object, `the gateway believes X-Forwarded-For from a proxy, and its port is open to ${describePeer(peer)}: anyone there could name any client`);
    }
  }
}

/** A deployed overlay runs one release from a registry. */
function checkRelease(context: Context): void {
  const pins = new Set<string>();
  for (const entry of context.entries) {
    const image = entry.container.image;
    const pin = image.includes('@sha256:') ? image.slice(image.indexOf('@')) : /:([^/:]+)$/.exec(image)?.[1];
    if (image.startsWith('localhost/') || !pin || pin === 'local' || pin === 'latest') {
      context.report('release-images', entry.workload.object, `${entry.container.name} runs ${image}: a deployed overlay names the registry and a release tag or digest`);
    }
    if (pin) pins.add(pin);
  }
  const first = context.entries[0];
  if (pins.size > 1 && first) context.report('release-images', first.workload.object, `the platform's images are built together and share one release; this render mixes ${[...pins].join(', ')}`);
}

/** The migration is its own render, applied and awaited first; a Job that fails once stays failed, within a deadline. */
function checkMigration(context: Context): void {
  const migrations = context.workloads.filter((workload) => imageOfWorkload(workload) === 'migrate');
  if (context.deployments.length > 0) {
    for (const migration of migrations) context.report('migration-before-rollout', migration.object, 'the migration is applied and awaited on its own before the rollout: not in the same render as the Deployments');
  }
  for (const job of context.workloads.filter((workload) => workload.object.kind === 'Job')) {
    if (job.pod.restartPolicy !== 'Never') context.report('migration-job', job.object, 'restartPolicy must be Never (a failure is read, not retried in place)');
    if (typeof job.object.spec?.['backoffLimit'] !== 'number') context.report('migration-job', job.object, 'backoffLimit must be set');
    if (typeof job.object.spec?.['activeDeadlineSeconds'] !== 'number') context.report('migration-job', job.object, 'activeDeadlineSeconds must be set (the rollout waits for it)');
  }
}

/** Checks rendered objects against every rule. */
export function checkManifests(objects: readonly K8sObject[], options: CheckOptions): ManifestViolation[] {
  const violations: ManifestViolation[] = [];
  const report = (rule: ManifestRule, object: K8sObject, message: string) => violations.push({ rule, object: nameOf(object), message });
  const workloads = workloadsOf(objects);
  const entries: PlatformContainer[] = [];
  for (const workload of workloads) {
    for (const container of allContainers(workload.pod)) {
      const definition = options.platform.images[imageBaseName(container.image) as PlatformImage];
      if (definition) entries.push({ workload, container, definition, env: containerEnv(container, objects) });
      else report('known-image', workload.object, `container ${container.name} runs ${container.image}, not one of the platform's images`);
    }
  }
  const context: Context = {
    objects,
    workloads,
    deployments: workloads.filter((workload) => workload.object.kind === 'Deployment'),
    services: objects.filter((object) => object.kind === 'Service'),
    entries,
    platform: options.platform,
    report,
  };
  checkNamespace(context);
  for (const entry of entries) {
    checkConfiguration(context, entry);
    checkPeerUrls(context, entry);
    checkProbes(context, entry);
    checkResources(context, entry);
    checkSecurityContext(context, entry);
  }
  checkPods(context);
  checkSecrets(context);
  checkRollout(context);
  checkServices(context);
  checkNetwork(context);
  if (options.release) checkRelease(context);
  checkMigration(context);
  return violations;
}
