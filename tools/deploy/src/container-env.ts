import type { Container, K8sObject, PodSpec } from './k8s-objects';

/** Where a variable of a container comes from. */
export type EnvSource =
  | { kind: 'value'; value: string }
  | { kind: 'configMap'; configMap: string; value: string | undefined }
  | { kind: 'secret'; secret: string; key: string }
  | { kind: 'other' };

export interface ContainerEnv {
  /** Variable name → its source; a later definition wins, as in Kubernetes (env over envFrom). */
  variables: Map<string, EnvSource>;
  /** Secrets taken whole (`envFrom: secretRef`): their keys are unknown here. */
  wholeSecrets: string[];
  /** ConfigMaps named by envFrom that the render does not hold. */
  missingConfigMaps: string[];
}

const configMapNamed = (objects: readonly K8sObject[], name: string) => objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);

/** A container's environment as the manifests define it (envFrom first, then env). */
export function containerEnv(container: Container, objects: readonly K8sObject[]): ContainerEnv {
  const variables = new Map<string, EnvSource>();
  const wholeSecrets: string[] = [];
  const missingConfigMaps: string[] = [];
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) wholeSecrets.push(from.secretRef.name);
    if (from.configMapRef) {
      const configMap = configMapNamed(objects, from.configMapRef.name);
      if (!configMap) missingConfigMaps.push(from.configMapRef.name);
      for (const [name, value] of Object.entries(configMap?.data ?? {})) variables.set(name, { kind: 'configMap', configMap: from.configMapRef.name, value });
    }
  }
  for (const entry of container.env ?? []) {
    const secret = entry.valueFrom?.secretKeyRef;
    const configMapKey = entry.valueFrom?.configMapKeyRef;
    if (secret) variables.set(entry.name, { kind: 'secret', secret: secret.name, key: secret.key });
    else if (configMapKey) {
      const configMap = configMapNamed(objects, configMapKey.name);
      if (!configMap) missingConfigMaps.push(configMapKey.name);
      variables.set(entry.name, { kind: 'configMap', configMap: configMapKey.name, value: configMap?.data?.[configMapKey.key] });
    } else if (entry.valueFrom) variables.set(entry.name, { kind: 'other' });
    else variables.set(entry.name, { kind: 'value', value: entry.value ?? '' });
  }
  return { variables, wholeSecrets, missingConfigMaps };
}

/** The literal value of a variable (a value or a ConfigMap key), when the manifests hold one. */
export function literalValue(source: EnvSource): string | undefined {
  if (source.kind === 'value') return source.value;
  if (source.kind === 'configMap') return source.value;
  return undefined;
}

/** Every Secret a pod can read: by variable, whole, or as a volume. */
export function secretsOf(pod: PodSpec): string[] {
  const names = new Set<string>();
  for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
    for (const entry of container.env ?? []) if (entry.valueFrom?.secretKeyRef) names.add(entry.valueFrom.secretKeyRef.name);
    for (const from of container.envFrom ?? []) if (from.secretRef) names.add(from.secretRef.name);
  }
  for (const volume of pod.volumes ?? []) {
    if (volume.secret) names.add(volume.secret.secretName);
    for (const source of volume.projected?.sources ?? []) if (source.secret) names.add(source.secret.name);
  }
  return [...names];
}
