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
 * by key. TOKEN is not among the words: ACCESS_TOKEN_TTL_SECONDS and friends are settings.
 */
const SECRET_VARIABLE = /((^|_)(SECRET|PASSWORD|PASSWD|PRIVATE|CREDENTIALS?|KEYS?)(_|$)|DATABASE_URL$|^REDIS_URL$)/;

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

/** Checks rendered objects against every rule. */
export function checkManifests(objects: readonly K8sObject[], options: CheckOptions): ManifestViolation[] {
  const violations: ManifestViolation[] = [];
  const report = (rule: ManifestRule, object: K8sObject, message: string) => violations.push({ rule, object: nameOf(object), message });
  const { images, nodeImages, nodeMemoryFloorMiB } = options.platform;
  const workloads = workloadsOf(objects);
  const deployments = workloads.filter((workload) => workload.object.kind === 'Deployment');
  const services = objects.filter((object) => object.kind === 'Service');

  // Every object in one namespace: a component's object left outside it is not found by the
  // names, selectors and policies of the others.
  const namespaces = new Set(objects.filter((object) => object.kind !== 'Namespace').map((object) => object.metadata.namespace));
  const declared = objects.find((object) => object.kind === 'Namespace')?.metadata.name;
  const expectedNamespace = declared ?? [...namespaces][0];
  for (const object of objects.filter((candidate) => candidate.kind !== 'Namespace' && candidate.metadata.namespace !== expectedNamespace)) {
    report('one-namespace', object, `is in namespace ${object.metadata.namespace ?? '(none)'}, the rest in ${expectedNamespace ?? '(none)'}`);
  }

  const entries: PlatformContainer[] = [];
  for (const workload of workloads) {
    for (const container of allContainers(workload.pod)) {
      const base = imageBaseName(container.image);
      const definition = images[base as PlatformImage];
      if (!definition) {
        report('known-image', workload.object, `container ${container.name} runs ${container.image}, not one of the platform's images`);
        continue;
      }
      entries.push({ workload, container, definition, env: containerEnv(container, objects) });
    }
  }

  /** The Services in front of a platform image: name → the ports they expose. */
  const servicesOf = (image: PlatformImage) =>
    services.filter((service) => workloads.some((workload) => imageOfWorkload(workload) === image && selects(mapSelector(service.spec?.['selector']), workload.labels)));

  for (const entry of entries) {
    const { workload, container, definition, env } = entry;
    const object = workload.object;
    const where = `container ${container.name} (${definition.image})`;

    // --- configuration
    for (const name of env.missingConfigMaps) report('config-references', object, `${where} reads ConfigMap ${name}, which is not in the render`);
    for (const volume of workload.pod.volumes ?? []) {
      const configMap = (volume as { configMap?: { name: string } }).configMap;
      if (configMap && !objects.some((other) => other.kind === 'ConfigMap' && other.metadata.name === configMap.name)) {
        report('config-references', object, `volume ${volume.name} mounts ConfigMap ${configMap.name}, which is not in the render`);
      }
    }
    for (const [name, source] of env.variables) {
      if (!definition.variables.has(name)) {
        report('env-read-by-service', object, `${where} sets ${name}, which ${definition.image} does not read (not in its environment schema)`);
        continue;
      }
      const value = literalValue(source);
      const problem = value === undefined ? undefined : definition.valueProblem(name, value);
      if (problem) report('env-values', object, `${where}: ${name}=${value}: ${problem}`);
      if (SECRET_VARIABLE.test(name) && source.kind !== 'secret') report('secrets-by-reference', object, `${where}: ${name} holds a secret and must come from a Secret (secretKeyRef), not from the manifests`);
    }
    for (const secret of env.wholeSecrets) report('secrets-by-reference', object, `${where} takes Secret ${secret} whole (envFrom): name each variable with secretKeyRef, so that a key added to it later reaches no one by surprise`);
    const configProblem = definition.configProblem(startingEnv(entry));
    if (configProblem) report('config-loads', object, `${where} would not start with this configuration: ${configProblem}`);

    for (const [variable, peer] of Object.entries(PEER_URL_VARIABLES)) {
      if (!definition.variables.has(variable)) continue;
      const source = env.variables.get(variable);
      const value = source && literalValue(source);
      if (value === undefined) {
        report('peer-urls', object, `${where} reads ${variable} and the manifests do not set it (its default is loopback, nothing in a pod)`);
        continue;
      }
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      const host = url?.hostname.split('.')[0];
      const port = url ? Number(url.port || (url.protocol === 'https:' ? 443 : 80)) : NaN;
      const matching = servicesOf(peer).filter((service) => service.metadata.name === host && (service.spec?.['ports'] as { port: number }[] | undefined)?.some((entry) => entry.port === port));
      if (matching.length === 0) report('peer-urls', object, `${where}: ${variable}=${value} names no Service in front of ${peer} on that port`);
    }
    if (definition.image === 'nginx-gateway') {
      for (const volume of workload.pod.volumes ?? []) {
        const configMap = objects.find((other) => other.kind === 'ConfigMap' && other.metadata.name === (volume as { configMap?: { name: string } }).configMap?.name);
        for (const conf of Object.values(configMap?.data ?? {})) {
          for (const match of conf.matchAll(/^\s*server ([A-Za-z0-9.-]+):(\d+)/gm)) {
            const [, host, port] = match as unknown as [string, string, string];
            const known = services.some(
              (service) => service.metadata.name === host.split('.')[0] && (service.spec?.['ports'] as { port: number }[] | undefined)?.some((entry) => entry.port === Number(port)),
            );
            if (!known) report('peer-urls', object, `${where}: nginx's upstream ${host}:${port} names no Service of the render`);
          }
        }
      }
    }

    // --- probes
    if (definition.probes && object.kind === 'Deployment') {
      const port = listenPort(entry);
      const expected: [string, Probe | undefined, string][] = [
        ['livenessProbe', container.livenessProbe, definition.probes.liveness],
        ['readinessProbe', container.readinessProbe, definition.probes.readiness],
        ...(container.startupProbe ? [['startupProbe', container.startupProbe, definition.probes.liveness] as [string, Probe, string]] : []),
      ];
      for (const [kind, probe, path] of expected) {
        if (probe?.httpGet?.path !== path) report('probes', object, `${where}: ${kind} must GET ${path} (${definition.image}'s endpoint), not ${probe?.httpGet?.path ?? 'nothing'}`);
        const target = probePort(probe, container);
        if (probe && target !== port) report('probes', object, `${where}: ${kind} probes port ${String(probe.httpGet?.port)} (${target ?? 'no such port'}); the process listens on ${port}`);
      }
      if (!container.ports?.some((entry) => entry.containerPort === port)) report('probes', object, `${where} listens on ${port} and declares no such containerPort`);
    }

    // --- resources
    const requests = container.resources?.requests ?? {};
    const limits = container.resources?.limits ?? {};
    if (!requests['cpu'] || !requests['memory']) report('resources', object, `${where}: requests of cpu and memory are required (scheduling)`);
    const limit = mebibytes(limits['memory']);
    if (limit === undefined) report('resources', object, `${where}: a memory limit is required`);
    else {
      if (nodeImages.includes(definition.image) && limit < nodeMemoryFloorMiB) {
        report('resources', object, `${where}: memory limit ${limits['memory']} is below ${nodeMemoryFloorMiB} MiB, what V8 may take in these images (a leak would end in an OOM kill, not V8's own error)`);
      }
      const request = mebibytes(requests['memory']);
      if (request !== undefined && request > limit) report('resources', object, `${where}: memory request ${requests['memory']} above its limit ${limits['memory']}`);
    }

    // --- security
    const pod = workload.pod.securityContext ?? {};
    const own = container.securityContext ?? {};
    if ((own.runAsNonRoot ?? pod.runAsNonRoot) !== true) report('non-root', object, `${where}: runAsNonRoot must be true`);
    const user = own.runAsUser ?? pod.runAsUser;
    if (typeof user !== 'number' || user === 0) report('non-root', object, `${where}: a numeric non-zero runAsUser is required (the images name their user, which the kubelet cannot check)`);
    if (own.allowPrivilegeEscalation !== false) report('non-root', object, `${where}: allowPrivilegeEscalation must be false`);
    if (own.readOnlyRootFilesystem !== true) report('non-root', object, `${where}: readOnlyRootFilesystem must be true`);
    if (!own.capabilities?.drop?.includes('ALL') || (own.capabilities.add ?? []).length > 0) report('non-root', object, `${where}: capabilities must drop ALL and add none`);
    if ((own.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault') report('non-root', object, `${where}: seccompProfile RuntimeDefault is required`);
  }

  // --- pods
  for (const workload of workloads) {
    const object = workload.object;
    if (workload.pod.automountServiceAccountToken !== false) report('non-root', object, 'automountServiceAccountToken must be false (nothing here calls the Kubernetes API)');
    if (workload.pod.enableServiceLinks !== false) report('env-read-by-service', object, 'enableServiceLinks must be false (the Services would add <NAME>_PORT=tcp://... variables no schema expects)');
  }

  // --- secrets
  for (const object of objects.filter((candidate) => candidate.kind === 'Secret')) {
    report('secrets-by-reference', object, 'a Secret in the manifests is a secret in git: create it in the cluster and reference it');
  }
  for (const workload of workloads.filter((candidate) => GATEWAY_IMAGES.includes(imageOfWorkload(candidate) as PlatformImage))) {
    const secrets = secretsOf(workload.pod);
    if (secrets.length > 0) report('gateway-without-secrets', workload.object, `the gateway reads Secret ${secrets.join(', ')}: it needs none (no database, no signing key)`);
  }
  const signingSecrets = new Set<string>();
  for (const entry of entries) {
    for (const name of ['OIDC_SIGNING_KEYS', 'OIDC_SIGNING_KEYS_FILE']) {
      const source = entry.env.variables.get(name);
      if (!source) continue;
      if (entry.definition.image !== 'auth-server') report('signing-keys-auth-only', entry.workload.object, `${entry.container.name} (${entry.definition.image}) gets ${name}: only the auth server holds signing keys`);
      else if (source.kind === 'secret') signingSecrets.add(source.secret);
    }
  }
  for (const workload of workloads.filter((candidate) => imageOfWorkload(candidate) !== 'auth-server')) {
    for (const secret of secretsOf(workload.pod).filter((name) => signingSecrets.has(name))) {
      report('signing-keys-auth-only', workload.object, `reads Secret ${secret}, which holds the signing keys`);
    }
  }

  // --- rollout, disruption, spread
  const budgets = objects.filter((object) => object.kind === 'PodDisruptionBudget');
  for (const deployment of deployments) {
    const object = deployment.object;
    const replicas = object.spec?.['replicas'];
    if (typeof replicas !== 'number' || replicas < 2) report('replicas', object, `replicas must be at least 2, got ${JSON.stringify(replicas)}`);
    const strategy = object.spec?.['strategy'] ?? {};
    const rolling = strategy.rollingUpdate ?? {};
    if (strategy.type !== 'RollingUpdate' || rolling.maxUnavailable !== 0 || rolling.maxSurge !== 1) {
      report('rolling-capacity', object, `a rollout must never drop capacity: RollingUpdate with maxUnavailable 0 and maxSurge 1, got ${JSON.stringify(strategy)}`);
    }
    for (const container of deployment.pod.containers) {
      const definition = images[imageBaseName(container.image) as PlatformImage];
      const preStop = container.lifecycle?.preStop;
      if (!preStop) {
        report('graceful-stop', object, `container ${container.name}: a preStop pause is required (it keeps serving while its endpoint is withdrawn everywhere)`);
        continue;
      }
      const pause = preStop.sleep?.seconds ?? 0;
      const grace = deployment.pod.terminationGracePeriodSeconds ?? 30;
      const entry = entries.find((candidate) => candidate.container === container);
      const shutdown = entry && definition?.shutdownTimeoutMs ? Math.ceil(definition.shutdownTimeoutMs(startingEnv(entry)) / 1000) : 0;
      if (grace < pause + shutdown + 1) {
        report('graceful-stop', object, `container ${container.name}: terminationGracePeriodSeconds ${grace} must cover the preStop pause (${pause} s), the shutdown deadline (${shutdown} s) and a second more`);
      }
    }
    const spread = (deployment.pod.topologySpreadConstraints ?? []).some((constraint) => constraint.topologyKey === 'kubernetes.io/hostname' && selects(constraint.labelSelector, deployment.labels));
    if (!spread) report('topology-spread', object, 'a topologySpreadConstraint over kubernetes.io/hostname selecting its own pods is required (a lost node takes one replica)');
    const own = budgets.filter((budget) => selects(budget.spec?.['selector'], deployment.labels));
    if (own.length !== 1) report('disruption-budget', object, `exactly one PodDisruptionBudget must select its pods, found ${own.length}`);
    for (const budget of own) {
      const { maxUnavailable, minAvailable } = budget.spec ?? {};
      if (typeof replicas === 'number' && ((typeof maxUnavailable === 'number' && maxUnavailable >= replicas) || (typeof minAvailable === 'number' && minAvailable >= replicas))) {
        report('disruption-budget', budget, `with ${replicas} replicas it must leave one available and still let one go`);
      }
    }
  }
  for (const budget of budgets) {
    const selected = deployments.filter((deployment) => selects(budget.spec?.['selector'], deployment.labels));
    if (selected.length !== 1) report('disruption-budget', budget, `must select exactly one Deployment's pods, selects ${selected.length}`);
  }

  // --- services and the public entry
  for (const service of services) {
    const selected = workloads.filter((workload) => selects(mapSelector(service.spec?.['selector']), workload.labels));
    if (selected.length !== 1) {
      report('service-selectors', service, `its selector ${JSON.stringify(service.spec?.['selector'])} must match exactly one Deployment's pod labels, matches ${selected.length}`);
      continue;
    }
    const ports = (selected[0] as Workload).pod.containers.flatMap((container) => container.ports ?? []);
    for (const port of (service.spec?.['ports'] as { port: number; targetPort?: number | string }[] | undefined) ?? []) {
      const target = port.targetPort ?? port.port;
      if (!ports.some((entry) => entry.name === target || entry.containerPort === target)) report('service-selectors', service, `targetPort ${target} is no port of ${nameOf((selected[0] as Workload).object)}`);
    }
    const type = service.spec?.['type'] ?? 'ClusterIP';
    if (type !== 'ClusterIP' && !selected.some((workload) => GATEWAY_IMAGES.includes(imageOfWorkload(workload) as PlatformImage))) {
      report('one-public-entry', service, `type ${type} exposes ${nameOf((selected[0] as Workload).object)}: only the gateway is reached from outside`);
    }
  }
  const gatewayServices = new Set(GATEWAY_IMAGES.flatMap((image) => servicesOf(image).map((service) => service.metadata.name)));
  for (const ingress of objects.filter((object) => object.kind === 'Ingress')) {
    const backends: string[] = [];
    const defaultBackend = ingress.spec?.['defaultBackend']?.service?.name;
    if (defaultBackend) backends.push(defaultBackend);
    for (const rule of ingress.spec?.['rules'] ?? []) for (const path of rule.http?.paths ?? []) backends.push(path.backend?.service?.name);
    for (const backend of backends.filter((name) => !gatewayServices.has(name))) report('one-public-entry', ingress, `sends traffic to Service ${backend}: only the gateway is reached from outside`);
  }

  // --- network policies
  for (const workload of workloads) {
    for (const direction of ['Ingress', 'Egress'] as const) {
      const closed = objects.some(
        (object) => object.kind === 'NetworkPolicy' && selects(object.spec?.['podSelector'], workload.labels) && (object.spec?.['policyTypes'] ?? ['Ingress']).includes(direction),
      );
      if (!closed) report('network-default-deny', workload.object, `no NetworkPolicy selects its pods for ${direction}: everything is allowed that way`);
    }
  }
  for (const policy of objects.filter((object) => object.kind === 'NetworkPolicy')) {
    if (!workloads.some((workload) => selects(policy.spec?.['podSelector'], workload.labels))) report('network-selectors', policy, 'its podSelector selects no pod of the render');
    for (const rule of [...(policy.spec?.['ingress'] ?? []), ...(policy.spec?.['egress'] ?? [])]) {
      for (const peer of [...(rule.from ?? []), ...(rule.to ?? [])]) {
        if (peer.podSelector && !peer.namespaceSelector && !workloads.some((workload) => selects(peer.podSelector, workload.labels))) {
          report('network-selectors', policy, `a peer's podSelector ${JSON.stringify(peer.podSelector)} matches no pod of the render`);
        }
      }
    }
  }
  for (const entry of entries.filter((candidate) => candidate.workload.object.kind === 'Deployment' && CALLERS[candidate.definition.image])) {
    const allowed = CALLERS[entry.definition.image] ?? [];
    const peers = peersFor(objects, entry.workload, 'Ingress', listenPort(entry));
    for (const peer of peers.filter(isOpenPeer)) report('only-gateway-reaches-services', entry.workload.object, `port ${listenPort(entry)} is open to ${describePeer(peer)}: it believes X-Forwarded-For from the pod CIDR`);
    for (const caller of workloadsAmong(peers, workloads)) {
      if (!allowed.includes(imageOfWorkload(caller) as PlatformImage)) report('only-gateway-reaches-services', entry.workload.object, `${nameOf(caller.object)} may reach port ${listenPort(entry)}: only ${allowed.join(', ')} may`);
    }
  }
  for (const entry of entries.filter((candidate) => candidate.workload.object.kind === 'Deployment' && GATEWAY_IMAGES.includes(candidate.definition.image))) {
    const trust = entry.env.variables.get('GATEWAY_TRUST_PROXY');
    const trustValue = trust ? literalValue(trust) : undefined;
    const nginxTrusts = (entry.workload.pod.volumes ?? []).some((volume) => {
      const name = (volume as { configMap?: { name: string } }).configMap?.name;
      const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);
      return Object.values(configMap?.data ?? {}).some((conf) => /^\s*set_real_ip_from /m.test(conf));
    });
    const trusts = entry.definition.image === 'gateway' ? trustValue !== undefined && trustValue !== 'false' : nginxTrusts;
    if (!trusts) continue;
    for (const peer of peersFor(objects, entry.workload, 'Ingress', listenPort(entry)).filter(isOpenPeer)) {
      report('gateway-trust-needs-policy', entry.workload.object, `the gateway believes X-Forwarded-For from a proxy, and its port is open to ${describePeer(peer)}: anyone there could name any client`);
    }
  }

  // --- release and migration
  if (options.release) {
    const tags = new Set<string>();
    for (const entry of entries) {
      const image = entry.container.image;
      const pinned = image.includes('@sha256:') ? image.slice(image.indexOf('@')) : /:([^/:]+)$/.exec(image)?.[1];
      if (image.startsWith('localhost/') || !pinned || pinned === 'local' || pinned === 'latest') {
        report('release-images', entry.workload.object, `${entry.container.name} runs ${image}: a deployed overlay names the registry and a release tag or digest`);
      }
      if (pinned) tags.add(pinned);
    }
    if (tags.size > 1) report('release-images', objects[0] as K8sObject, `the platform's images are built together and share one release; this render mixes ${[...tags].join(', ')}`);
  }
  const migrations = workloads.filter((workload) => imageOfWorkload(workload) === 'migrate');
  if (migrations.length > 0 && deployments.length > 0) {
    for (const migration of migrations) report('migration-before-rollout', migration.object, 'the migration is applied and awaited on its own before the rollout: not in the same render as the Deployments');
  }
  for (const job of workloads.filter((workload) => workload.object.kind === 'Job')) {
    if (job.pod.restartPolicy !== 'Never') report('migration-job', job.object, 'restartPolicy must be Never (a failure is read, not retried in place)');
    if (typeof job.object.spec?.['backoffLimit'] !== 'number') report('migration-job', job.object, 'backoffLimit must be set');
    if (typeof job.object.spec?.['activeDeadlineSeconds'] !== 'number') report('migration-job', job.object, 'activeDeadlineSeconds must be set (the rollout waits for it)');
  }
  return violations;
}
