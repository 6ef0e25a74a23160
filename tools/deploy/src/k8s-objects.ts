/**
 * Rendered Kubernetes objects, read loosely: the rules look at the few fields they check, and the
 * schema validation (schema-validation.ts) has already said whether each object is well formed.
 */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Deliberately loose: every kind has its own spec.
  spec?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

/** Whether labels satisfy a selector. An empty selector matches everything, as in Kubernetes. */
export function selects(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (have[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const value = have[expression.key];
    const listed = value !== undefined && (expression.values ?? []).includes(value);
    if (expression.operator === 'In' && !listed) return false;
    if (expression.operator === 'NotIn' && listed) return false;
    if (expression.operator === 'Exists' && value === undefined) return false;
    if (expression.operator === 'DoesNotExist' && value !== undefined) return false;
  }
  return true;
}

/** A Service's plain `selector` map as a label selector. */
export const mapSelector = (labels: Record<string, string> | undefined): LabelSelector | undefined => (labels ? { matchLabels: labels } : undefined);

export interface Probe {
  httpGet?: { path?: string; port?: number | string };
}

export interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: unknown; httpGet?: unknown } };
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: SecurityContext;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
  topologySpreadConstraints?: { topologyKey: string; whenUnsatisfiable: string; labelSelector?: LabelSelector }[];
  volumes?: { name: string; secret?: { secretName: string }; projected?: { sources?: { secret?: { name: string } }[] } }[];
}

/** A workload's pod template: Deployments and Jobs here (CronJobs, StatefulSets would join). */
export interface Workload {
  object: K8sObject;
  labels: Record<string, string>;
  pod: PodSpec;
}

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job']);

export function workloadsOf(objects: readonly K8sObject[]): Workload[] {
  return objects
    .filter((object) => WORKLOAD_KINDS.has(object.kind))
    .map((object) => ({ object, labels: object.spec?.['template']?.metadata?.labels ?? {}, pod: object.spec?.['template']?.spec ?? { containers: [] } }));
}

export const allContainers = (pod: PodSpec): Container[] => [...(pod.initContainers ?? []), ...pod.containers];

/** `Kind/name`, for messages. */
export const nameOf = (object: K8sObject) => `${object.kind}/${object.metadata.name}`;

/** The last segment of an image's repository: `registry.example.com/course-platform/gateway:1.0` → `gateway`. */
export function imageBaseName(image: string): string {
  const withoutDigest = image.split('@')[0] as string;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const lastColon = withoutDigest.lastIndexOf(':');
  const repository = lastColon > lastSlash ? withoutDigest.slice(0, lastColon) : withoutDigest;
  return repository.slice(repository.lastIndexOf('/') + 1);
}

/** A Kubernetes quantity of memory in MiB (`768Mi`, `1Gi`, `805306368`, `800M`). */
export function mebibytes(quantity: string | undefined): number | undefined {
  if (quantity === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(quantity));
  if (!match) return undefined;
  const factor: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return (Number(match[1]) * (factor[match[2] ?? ''] as number)) / 1024 ** 2;
}
