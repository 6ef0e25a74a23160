import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { K8sObject } from './k8s-objects';

/**
 * `kubectl kustomize` renders the manifests (kubectl ships kustomize; no cluster is needed).
 * Debian's machine image has /usr/bin/kubectl (STACK.md); KUBECTL names another.
 */
export function findKubectl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidate = env['KUBECTL'] || 'kubectl';
  const probe = spawnSync(candidate, ['version', '--client'], { encoding: 'utf8' });
  return probe.status === 0 ? candidate : undefined;
}

export interface Kustomization {
  /** The directory, relative to the manifests' root (`overlays/production`). */
  name: string;
  dir: string;
  /** Deployed as it is (overlays/): its images must be a release's. */
  release: boolean;
}

/** Every kustomization under `root` that renders on its own (Components are rendered through those that use them). */
export function findKustomizations(root: string): Kustomization[] {
  const found: Kustomization[] = [];
  const visit = (dir: string) => {
    const file = join(dir, 'kustomization.yaml');
    if (existsSync(file) && (parse(readFileSync(file, 'utf8')) as { kind?: string }).kind !== 'Component') {
      const name = relative(root, dir);
      found.push({ name, dir, release: name.startsWith('overlays/') });
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(join(dir, entry.name));
  };
  visit(root);
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** The objects `kubectl kustomize dir` renders; throws with kustomize's own message when it cannot. */
export function render(kubectl: string, dir: string): K8sObject[] {
  const result = spawnSync(kubectl, ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${result.stderr || result.error?.message}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as K8sObject | null)
    .filter((object): object is K8sObject => object !== null);
}
