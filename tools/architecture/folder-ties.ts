import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The folder of a service's `src/` a file belongs to: its first segment, or `.` for the files at the top. */
function folderOf(srcDir: string, file: string): string {
  const parts = relative(srcDir, file).split(sep);
  return parts.length > 1 ? parts[0] : '.';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Which folders of `srcDir` each folder imports from (relative imports of its non-spec files,
 * read by TypeScript's own pre-processor: static imports, re-exports, `import()` and
 * `require`). Generated code is left out.
 */
export function folderImports(srcDir: string): Map<string, Set<string>> {
  const root = resolve(srcDir);
  const imports = new Map<string, Set<string>>();
  for (const file of sourceFiles(root)) {
    const from = folderOf(root, file);
    const targets = imports.get(from) ?? new Set<string>();
    imports.set(from, targets);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = folderOf(root, resolve(dirname(file), fileName));
      if (to !== from && !to.startsWith('..') && to !== 'generated') targets.add(to);
    }
  }
  return imports;
}

/** The pairs of folders that import each other, each pair once, sorted. */
export function twoWayTies(imports: Map<string, Set<string>>): [string, string][] {
  const ties: [string, string][] = [];
  for (const [from, targets] of imports) {
    for (const to of targets) if (from < to && imports.get(to)?.has(from)) ties.push([from, to]);
  }
  return ties.sort((a, b) => a.join('/').localeCompare(b.join('/')));
}
