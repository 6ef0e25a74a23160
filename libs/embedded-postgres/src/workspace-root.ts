import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The nearest directory above `from` that holds nx.json: works from src/ and from dist/. */
export function findWorkspaceRoot(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'nx.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No nx.json above ${from}: cannot find the workspace root`);
    dir = parent;
  }
  return dir;
}
