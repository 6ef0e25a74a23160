import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { containerEnv, secretsOf } from './container-env';
import { type Container, imageBaseName, type K8sObject, workloadsOf } from './k8s-objects';
import { checkManifests, type ManifestRule, type ManifestViolation } from './manifest-rules';
import { peersFor } from './network-reach';
import { loadPlatformDefinitions, renderNginxVariant, WORKSPACE } from './platform';
import { findKubectl, findKustomizations, render } from './render';
import { schemaProblems } from './schema-validation';

const MANIFESTS = join(WORKSPACE, 'deploy/kubernetes');
const kubectl = findKubectl();
const inCi = process.env['CI'] === 'true';
const kustomizations = findKustomizations(MANIFESTS);
const platform = loadPlatformDefinitions();

const rulesOf = (violations: ManifestViolation[]) => [...new Set(violations.map((violation) => violation.rule))].sort();
const check = (objects: K8sObject[], release = true) => checkManifests(objects, { platform, release });

const named = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((object) => object.kind === kind && (object.metadata.name === name || (kind === 'ConfigMap' && object.metadata.name.startsWith(`${name}-`))));
  if (!found) throw new Error(`no ${kind}/${name} in the render`);
  return found;
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the cases below reach into any kind's spec
const specOf = (objects: K8sObject[], kind: string, name: string): Record<string, any> => named(objects, kind, name).spec ?? {};
const containerOf = (objects: K8sObject[], deployment: string) => specOf(objects, 'Deployment', deployment)['template'].spec.containers[0] as Container;
const deploymentOf = (objects: K8sObject[], image: string) => workloadsOf(objects).find((workload) => imageBaseName(workload.pod.containers[0]?.image ?? '') === image);

if (!kubectl && !inCi) {
  console.warn('tools/deploy: kubectl not found (set KUBECTL or install it): deploy/kubernetes is not rendered or checked here. CI fails without it.');
}
const describeRendered = kubectl || inCi ? describe : describe.skip;

describeRendered('deploy/kubernetes', () => {
  const renders = new Map<string, K8sObject[]>();
  const rendered = (name: string) => structuredClone(renders.get(name) as K8sObject[]);

  beforeAll(() => {
    if (!kubectl) throw new Error('kubectl not found: CI machines have /usr/bin/kubectl (STACK.md), and the manifests cannot be checked without it');
    for (const kustomization of kustomizations) renders.set(kustomization.name, render(kubectl, kustomization.dir));
  }, 60_000);

  it('has the base, the migration, and the overlays with their migrations', () => {
    expect(kustomizations.map((kustomization) => kustomization.name)).toEqual([
      'base',
      'migrate',
      'namespace',
      'overlays/production',
      'overlays/production-nginx',
      'overlays/production/migrate',
      'overlays/small',
      'overlays/small/migrate',
    ]);
  });

  describe.each(kustomizations)('$name', (kustomization) => {
    it('renders, and every object validates against the Kubernetes schemas', () => {
      const objects = rendered(kustomization.name);
      expect(objects.length).toBeGreaterThan(0);
      expect(objects.flatMap((object) => schemaProblems(object).map((problem) => `${object.kind}/${object.metadata.name}: ${problem}`))).toEqual([]);
    });

    it('follows every project rule', () => {
      expect(check(rendered(kustomization.name), kustomization.release)).toEqual([]);
    });
  });

  it('runs three replicas of each service in production and two in the small overlay', () => {
    for (const [overlay, replicas] of [['overlays/production', 3], ['overlays/production-nginx', 3], ['overlays/small', 2]] as const) {
      const deployments = rendered(overlay).filter((object) => object.kind === 'Deployment');
      expect(deployments.map((deployment) => [deployment.metadata.name, deployment.spec?.['replicas']])).toEqual([
        ['auth-server', replicas],
        ['gateway', replicas],
        ['resource-server', replicas],
      ]);
    }
  });

  it('gives the gateway no Secret: no signing key, database URL, Redis URL or introspection secret', () => {
    for (const [name, objects] of renders) {
      const gateway = deploymentOf(objects, 'gateway') ?? deploymentOf(objects, 'nginx-gateway');
      if (!gateway) continue;
      const variables = gateway.pod.containers.flatMap((container) => [...containerEnv(container, objects).variables.keys()]);
      expect({ name, secrets: secretsOf(gateway.pod), variables: variables.filter((variable) => /SIGNING|DATABASE|REDIS|SECRET/.test(variable)) }).toEqual({ name, secrets: [], variables: [] });
    }
  });

  it('lets only the gateway and the other service reach a service in the namespace, Prometheus from its own, and the auth server out to https on public addresses', () => {
    const objects = rendered('overlays/production');
    const workload = (image: string) => deploymentOf(objects, image) ?? fail(`no ${image}`);
    const describePeers = (image: string, direction: 'Ingress' | 'Egress', port: number) =>
      peersFor(objects, workload(image), direction, port).map((peer) =>
        peer.kind === 'pods' ? `pods ${peer.selector.matchLabels?.['app.kubernetes.io/name']}` : peer.kind === 'namespaces' ? `${peer.namespaces.matchLabels?.['kubernetes.io/metadata.name']}/${peer.pods?.matchLabels?.['app.kubernetes.io/name']}` : peer.kind === 'addresses' ? `${peer.cidr} except ${peer.except.length}` : 'anyone',
      );
    expect(describePeers('auth-server', 'Ingress', 3001)).toEqual(['pods gateway', 'pods resource-server', 'monitoring/prometheus']);
    expect(describePeers('resource-server', 'Ingress', 3002)).toEqual(['pods gateway', 'pods auth-server', 'monitoring/prometheus']);
    expect(describePeers('gateway', 'Ingress', 3000)).toEqual(['ingress-nginx/ingress-nginx']);
    expect(describePeers('auth-server', 'Egress', 443)).toEqual(['0.0.0.0/0 except 6', '::/0 except 3']);
    expect(describePeers('resource-server', 'Egress', 443)).toEqual([]);
    expect(describePeers('resource-server', 'Egress', 3001)).toEqual(['pods auth-server']);
    expect(describePeers('gateway', 'Egress', 5432)).toEqual([]);
  });

  it('puts a headless Service and a ClusterIP one in front of each service: the gateway names the headless ones, the services and nginx the ClusterIPs', () => {
    const services = (name: string) => rendered(name).filter((object) => object.kind === 'Service').map((service) => [service.metadata.name, service.spec?.['clusterIP'] ?? 'virtual IP']);
    expect(services('overlays/production')).toEqual([
      ['auth-server', 'virtual IP'],
      ['auth-server-headless', 'None'],
      ['gateway', 'virtual IP'],
      ['resource-server', 'virtual IP'],
      ['resource-server-headless', 'None'],
    ]);
    const urls = (name: string, image: string) => {
      const workload = deploymentOf(rendered(name), image) ?? fail(`no ${image}`);
      const variables = containerEnv(workload.pod.containers[0] as Container, rendered(name)).variables;
      return ['AUTH_SERVER_URL', 'RESOURCE_SERVER_URL'].flatMap((variable) => {
        const source = variables.get(variable);
        return source?.kind === 'configMap' ? [`${variable}=${source.value}`] : [];
      });
    };
    expect(urls('overlays/production', 'gateway')).toEqual(['AUTH_SERVER_URL=http://auth-server-headless:3001', 'RESOURCE_SERVER_URL=http://resource-server-headless:3002']);
    expect(urls('overlays/production', 'auth-server')).toEqual(['RESOURCE_SERVER_URL=http://resource-server:3002']);
    expect(urls('overlays/production', 'resource-server')).toEqual(['AUTH_SERVER_URL=http://auth-server:3001']);
    expect([...renderNginxVariant().matchAll(/^\s*server ([A-Za-z0-9.-]+:\d+)/gm)].map((match) => match[1])).toEqual(['auth-server:3001', 'resource-server:3002']);
  });

  it('names in its README only variables some image reads', () => {
    const readme = readFileSync(join(MANIFESTS, 'README.md'), 'utf8');
    const read = new Set(Object.values(platform.images).flatMap((image) => [...image.variables]));
    const named = [...new Set([...readme.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`/g)].map((match) => match[1] as string))];
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((name) => !read.has(name))).toEqual([]);
  });

  it('renders each migration with the same release as its overlay', () => {
    const images = (name: string) => new Set(rendered(name).flatMap((object) => workloadsOf([object])).flatMap((workload) => workload.pod.containers.map((container) => /:([^/:]+)$/.exec(container.image)?.[1])));
    expect(images('overlays/production/migrate')).toEqual(images('overlays/production'));
    expect(images('overlays/small/migrate')).toEqual(images('overlays/small'));
  });

  it("keeps components/nginx-gateway/nginx.conf as the renderer makes it (node tools/deploy/nginx-conf.cjs)", () => {
    expect(readFileSync(join(MANIFESTS, 'components/nginx-gateway/nginx.conf'), 'utf8')).toBe(renderNginxVariant());
  });

  describe('a broken manifest is reported', () => {
    /** A copy of deploy/kubernetes with one file changed, rendered by kubectl as the real one is. */
    function renderChangedCopy(file: string, change: (source: string) => string, kustomization: string): K8sObject[] {
      const copy = mkdtempSync(join(tmpdir(), 'deploy-kubernetes-'));
      try {
        cpSync(MANIFESTS, copy, { recursive: true });
        const path = join(copy, file);
        const source = readFileSync(path, 'utf8');
        const changed = change(source);
        expect(changed).not.toBe(source);
        writeFileSync(path, changed);
        return render(kubectl as string, join(copy, kustomization));
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }

    it('replicas: "three" fails the schema validation', () => {
      const objects = renderChangedCopy('base/auth-server.yaml', (source) => source.replace('replicas: 2', 'replicas: "three"'), 'base');
      expect(schemaProblems(named(objects, 'Deployment', 'auth-server'))).toEqual(['/spec/replicas must be integer']);
    });

    it('a missing AUTH_SERVER_URL leaves the resource server calling itself: peer-urls', () => {
      const objects = renderChangedCopy('base/config/resource-server.env', (source) => source.replace(/^AUTH_SERVER_URL=.*\n/m, ''), 'overlays/production');
      const violations = check(objects);
      expect(rulesOf(violations)).toEqual(['peer-urls']);
      expect(violations[0]?.message).toContain('reads AUTH_SERVER_URL and the manifests do not set it');
    });

    const secretVariable = (name: string, secret: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: secret, key } } });

    const cases: { name: string; rules: ManifestRule[]; change(objects: K8sObject[]): void; render?: string }[] = [
      {
        name: 'the signing keys given to the gateway',
        rules: ['env-read-by-service', 'gateway-without-secrets', 'signing-keys-auth-only'],
        change: (objects) => void (containerOf(objects, 'gateway').env = [secretVariable('OIDC_SIGNING_KEYS', 'oidc-signing-keys', 'keys')]),
      },
      {
        name: "a database URL given to the gateway",
        rules: ['env-read-by-service', 'gateway-without-secrets'],
        change: (objects) => void (containerOf(objects, 'gateway').env = [secretVariable('DATABASE_URL', 'auth-server-database', 'url')]),
      },
      {
        name: 'a variable the service does not read (a typo)',
        rules: ['env-read-by-service'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'auth-server-config').data as Record<string, string>)['RATE_LIMITS_ENABLE'] = 'false'),
      },
      {
        name: 'a value its schema refuses',
        rules: ['config-loads', 'env-values'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'platform-config').data as Record<string, string>)['TRUSTED_PROXIES'] = 'the-gateway'),
      },
      {
        name: 'a configuration the service refuses at start (http issuer in production)',
        rules: ['config-loads'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'platform-config').data as Record<string, string>)['PUBLIC_BASE_URL'] = 'http://academy.example.com'),
      },
      {
        name: 'a database URL written in a ConfigMap',
        rules: ['secrets-by-reference'],
        change: (objects) => {
          (named(objects, 'ConfigMap', 'auth-server-config').data as Record<string, string>)['DATABASE_URL'] = 'postgresql://platform:hunter2@db:5432/platform_auth';
          containerOf(objects, 'auth-server').env = containerOf(objects, 'auth-server').env?.filter((entry) => entry.name !== 'DATABASE_URL');
        },
      },
      {
        name: 'a Secret taken whole',
        rules: ['secrets-by-reference'],
        change: (objects) => void containerOf(objects, 'resource-server').envFrom?.push({ secretRef: { name: 'redis' } }),
      },
      {
        name: 'a Service whose selector matches no pod (so nothing fronts the auth server)',
        rules: ['peer-urls', 'service-selectors'],
        change: (objects) => void (specOf(objects, 'Service', 'auth-server')['selector'] = { 'app.kubernetes.io/name': 'auth' }),
      },
      {
        name: 'a probe on a path the service does not answer',
        rules: ['probes'],
        change: (objects) => void ((containerOf(objects, 'resource-server').readinessProbe?.httpGet as { path: string }).path = '/ready'),
      },
      {
        name: 'a probe on another port',
        rules: ['probes'],
        change: (objects) => void ((containerOf(objects, 'auth-server').livenessProbe?.httpGet as { port: number }).port = 3002),
      },
      {
        name: 'a single replica (which its budget of one cannot protect)',
        rules: ['disruption-budget', 'replicas'],
        change: (objects) => void (specOf(objects, 'Deployment', 'resource-server')['replicas'] = 1),
      },
      {
        name: 'replicas that may all sit on one node',
        rules: ['topology-spread'],
        change: (objects) => void (specOf(objects, 'Deployment', 'gateway')['template'].spec.topologySpreadConstraints = []),
      },
      {
        name: 'a Deployment without its PodDisruptionBudget',
        rules: ['disruption-budget'],
        change: (objects) => void objects.splice(objects.indexOf(named(objects, 'PodDisruptionBudget', 'gateway')), 1),
      },
      {
        name: 'a container without a memory limit',
        rules: ['resources'],
        change: (objects) => void (containerOf(objects, 'auth-server').resources = { requests: { cpu: '250m', memory: '384Mi' } }),
      },
      {
        name: 'a Node container limited below what V8 may take',
        rules: ['resources'],
        change: (objects) => void (containerOf(objects, 'gateway').resources = { requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '256Mi' } }),
      },
      {
        name: 'a pod that may run as root',
        rules: ['non-root'],
        change: (objects) => void (specOf(objects, 'Deployment', 'resource-server')['template'].spec.securityContext = { seccompProfile: { type: 'RuntimeDefault' } }),
      },
      {
        name: 'a rollout that may drop capacity',
        rules: ['rolling-capacity'],
        change: (objects) => void (specOf(objects, 'Deployment', 'gateway')['strategy'].rollingUpdate = { maxUnavailable: 1, maxSurge: 0 }),
      },
      {
        name: 'the gateway calling a ClusterIP (one address: kube-proxy would balance its connections, not its requests)',
        rules: ['headless-upstreams'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'gateway-config').data as Record<string, string>)['AUTH_SERVER_URL'] = 'http://auth-server:3001'),
      },
      {
        name: 'the resource server calling the headless Service (its fetch pool would keep the first pod it reached)',
        rules: ['headless-upstreams'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'resource-server-config').data as Record<string, string>)['AUTH_SERVER_URL'] = 'http://auth-server-headless.course-platform.svc.cluster.local:3001'),
      },
      {
        name: "nginx's upstream on a headless name (resolved once: the pods of its start)",
        rules: ['headless-upstreams'],
        render: 'overlays/production-nginx',
        change: (objects) => {
          const data = named(objects, 'ConfigMap', 'nginx-gateway-config').data as Record<string, string>;
          data['nginx.conf'] = (data['nginx.conf'] as string).replace('server resource-server:3002', 'server resource-server-headless:3002');
        },
      },
      {
        name: 'a drain its schema refuses (reported, not a crash of the checker)',
        rules: ['config-loads', 'env-values'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'platform-config').data as Record<string, string>)['SHUTDOWN_DRAIN_MS'] = 'five seconds'),
      },
      {
        name: 'a drain that eats the grace period',
        rules: ['graceful-stop'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'platform-config').data as Record<string, string>)['SHUTDOWN_DRAIN_MS'] = '15000'),
      },
      {
        name: "a preStop shorter than the gateway's view of a leaving pod",
        rules: ['graceful-stop'],
        change: (objects) => void (containerOf(objects, 'resource-server').lifecycle = { preStop: { sleep: { seconds: 5 } } }),
      },
      {
        name: 'a gateway that looks at DNS again less often than the preStop covers',
        rules: ['graceful-stop'],
        change: (objects) => void ((named(objects, 'ConfigMap', 'gateway-config').data as Record<string, string>)['GATEWAY_DNS_REFRESH_MS'] = '10000'),
      },
      {
        name: 'a grace period shorter than the shutdown',
        rules: ['graceful-stop'],
        change: (objects) => void (specOf(objects, 'Deployment', 'auth-server')['template'].spec.terminationGracePeriodSeconds = 10),
      },
      {
        name: 'a service port open to every pod',
        rules: ['only-gateway-reaches-services'],
        change: (objects) => void (specOf(objects, 'NetworkPolicy', 'auth-server')['ingress'] = [{ ports: [{ protocol: 'TCP', port: 3001 }] }]),
      },
      {
        name: 'another workload allowed to a service',
        rules: ['only-gateway-reaches-services'],
        change: (objects) => void specOf(objects, 'NetworkPolicy', 'resource-server')['ingress'][0].from.push({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'resource-server' } } }),
      },
      {
        name: 'a gateway that trusts a proxy while any pod may reach it',
        rules: ['gateway-trust-needs-policy'],
        change: (objects) => void (specOf(objects, 'NetworkPolicy', 'gateway')['ingress'] = [{ ports: [{ protocol: 'TCP', port: 3000 }] }]),
      },
      {
        name: 'a service exposed on its own',
        rules: ['one-public-entry'],
        change: (objects) => void (specOf(objects, 'Service', 'resource-server')['type'] = 'LoadBalancer'),
      },
      {
        name: 'a pod whose egress no policy closes',
        rules: ['network-default-deny'],
        change: (objects) => {
          for (const name of ['default-deny', 'dns']) objects.splice(objects.indexOf(named(objects, 'NetworkPolicy', name)), 1);
          specOf(objects, 'NetworkPolicy', 'gateway')['policyTypes'] = ['Ingress'];
        },
      },
      {
        name: 'an Ingress on another host than the public origin',
        rules: ['public-origin'],
        change: (objects) => void (specOf(objects, 'Ingress', 'gateway')['rules'][0].host = 'www.academy.example.com'),
      },
      {
        name: "a NetworkPolicy peer that matches nothing",
        rules: ['network-selectors'],
        change: (objects) => void (specOf(objects, 'NetworkPolicy', 'gateway')['egress'][0].to[0].podSelector = { matchLabels: { 'app.kubernetes.io/name': 'auth' } }),
      },
      {
        name: 'a ConfigMap the render does not hold',
        rules: ['config-references'],
        change: (objects) => void ((containerOf(objects, 'gateway').env?.[0]?.valueFrom?.configMapKeyRef as { name: string }).name = 'platform-settings'),
      },
      {
        name: 'a development image in an overlay',
        rules: ['release-images'],
        change: (objects) => void (containerOf(objects, 'gateway').image = 'localhost/course-platform/gateway:local'),
      },
      {
        name: 'an object outside the platform namespace',
        rules: ['one-namespace'],
        change: (objects) => void delete named(objects, 'Ingress', 'gateway').metadata.namespace,
      },
      {
        name: 'the migration rendered with the rollout',
        rules: ['migration-before-rollout'],
        change: (objects) => void objects.push(...rendered('overlays/production/migrate').filter((object) => object.kind === 'Job')),
      },
      {
        name: 'a migration retried in place, without a deadline',
        rules: ['migration-job'],
        render: 'overlays/production/migrate',
        change: (objects) => {
          specOf(objects, 'Job', 'migrate')['template'].spec.restartPolicy = 'OnFailure';
          delete specOf(objects, 'Job', 'migrate')['activeDeadlineSeconds'];
        },
      },
      {
        name: 'a container of an image that is none of the platform',
        rules: ['known-image'],
        change: (objects) => void specOf(objects, 'Deployment', 'auth-server')['template'].spec.containers.push({ name: 'debug', image: 'busybox:1.37', lifecycle: { preStop: { sleep: { seconds: 1 } } } }),
      },
    ];

    it.each(cases)('$name: $rules', ({ rules, change, render: name = 'overlays/production' }) => {
      const objects = rendered(name);
      change(objects);
      expect(rulesOf(check(objects))).toEqual(rules);
    });
  });
});
