import { type K8sObject, type LabelSelector, selects, type Workload } from './k8s-objects';

/** A peer a NetworkPolicy rule lets through, as the rule names it. */
export type Peer =
  /** Anything: no policy selects the pod for that direction, or a rule without peers. */
  | { kind: 'anyone'; policy?: string }
  /** Pods of the policy's own namespace. */
  | { kind: 'pods'; selector: LabelSelector; policy: string }
  /** Pods in other namespaces (a namespace selector, with a pod selector or without: the whole namespace). */
  | { kind: 'namespaces'; namespaces: LabelSelector; pods?: LabelSelector; policy: string }
  | { kind: 'addresses'; cidr: string; except: string[]; policy: string };

interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

interface PolicyRule {
  ports?: { port?: number | string; endPort?: number; protocol?: string }[];
  from?: PolicyPeer[];
  to?: PolicyPeer[];
}

export type Direction = 'Ingress' | 'Egress';

const isEmptySelector = (selector: LabelSelector | undefined) =>
  !!selector && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;

/** The port a rule names, as a number (a named port: the pod's container port of that name). */
function portMatches(rule: PolicyRule, port: number, portNames: ReadonlyMap<string, number>): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((entry) => {
    if ((entry.protocol ?? 'TCP') !== 'TCP') return false;
    if (entry.port === undefined) return true;
    const number = typeof entry.port === 'number' ? entry.port : portNames.get(entry.port);
    if (number === undefined) return false;
    return entry.endPort !== undefined ? port >= number && port <= entry.endPort : port === number;
  });
}

function peerOf(peer: PolicyPeer, policy: string): Peer {
  if (peer.ipBlock) return { kind: 'addresses', cidr: peer.ipBlock.cidr, except: peer.ipBlock.except ?? [], policy };
  if (peer.namespaceSelector) {
    if (isEmptySelector(peer.namespaceSelector) && (!peer.podSelector || isEmptySelector(peer.podSelector))) return { kind: 'anyone', policy };
    return { kind: 'namespaces', namespaces: peer.namespaceSelector, ...(peer.podSelector && !isEmptySelector(peer.podSelector) ? { pods: peer.podSelector } : {}), policy };
  }
  return { kind: 'pods', selector: peer.podSelector ?? {}, policy };
}

/**
 * Who may open a connection to `workload`'s `port` (Ingress), or whom the workload may reach on
 * `port` (Egress), by the NetworkPolicies of the render: the union of every rule of every policy
 * that selects the pod for that direction; anyone when none does.
 */
export function peersFor(objects: readonly K8sObject[], workload: Workload, direction: Direction, port: number): Peer[] {
  const portNames = new Map<string, number>();
  for (const container of workload.pod.containers) for (const entry of container.ports ?? []) if (entry.name) portNames.set(entry.name, entry.containerPort);
  const policies = objects.filter(
    (object) =>
      object.kind === 'NetworkPolicy' &&
      selects(object.spec?.['podSelector'], workload.labels) &&
      ((object.spec?.['policyTypes'] as Direction[] | undefined) ?? ['Ingress']).includes(direction),
  );
  if (policies.length === 0) return [{ kind: 'anyone' }];
  const peers: Peer[] = [];
  for (const policy of policies) {
    const rules = (direction === 'Ingress' ? policy.spec?.['ingress'] : policy.spec?.['egress']) as PolicyRule[] | undefined;
    for (const rule of rules ?? []) {
      // Egress ports are the destination's: a named one cannot be resolved here, so only numbers.
      if (!portMatches(rule, port, direction === 'Ingress' ? portNames : new Map())) continue;
      const list = direction === 'Ingress' ? rule.from : rule.to;
      if (!list || list.length === 0) peers.push({ kind: 'anyone', policy: policy.metadata.name });
      else for (const peer of list) peers.push(peerOf(peer, policy.metadata.name));
    }
  }
  return peers;
}

/** The workloads of the render a peer list lets through (in-namespace pods only). */
export function workloadsAmong(peers: readonly Peer[], workloads: readonly Workload[]): Workload[] {
  return workloads.filter((workload) => peers.some((peer) => peer.kind === 'anyone' || (peer.kind === 'pods' && selects(peer.selector, workload.labels))));
}
