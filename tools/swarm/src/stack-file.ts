import { parse } from 'yaml';

/** A stack file as YAML gives it, and as `docker stack deploy` reads it once its variables are substituted. */
export type Dict = Record<string, unknown>;

export const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names referenced by `${VAR...}` anywhere in a text (not `$${...}`, an escaped dollar). */
export function referencedVariables(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1] as string);
  return [...names].sort();
}

export class InterpolationError extends Error {}

/**
 * One value with its variables substituted as docker/cli's compose loader does: `$$` is a
 * dollar; `${VAR}` and `$VAR`; `${VAR:-default}` (unset or empty), `${VAR-default}` (unset);
 * `${VAR:?message}` and `${VAR?message}` refuse the file without it.
 */
export function interpolate(value: string, env: Readonly<Record<string, string | undefined>>): string {
  return value.replace(/\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (whole, escaped: string, name: string | undefined, colon: string, operator: string, argument: string, bare: string | undefined) => {
    if (escaped === '$') return '$';
    const variable = (name ?? bare) as string;
    const current = env[variable];
    const missing = current === undefined || (colon === ':' && current === '');
    if (operator === '-') return missing ? argument : (current as string);
    if (operator === '?' && missing) throw new InterpolationError(`${variable}: ${argument || 'required'}`);
    return current ?? '';
  });
}

/** Every string of a parsed document interpolated (keys are left as written, as docker/cli does). */
export function interpolateAll(document: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof document === 'string') return interpolate(document, env);
  if (Array.isArray(document)) return document.map((item) => interpolateAll(item, env));
  if (isDict(document)) return Object.fromEntries(Object.entries(document).map(([key, value]) => [key, interpolateAll(value, env)]));
  return document;
}

/** A stack file parsed (anchors and merge keys resolved), as written and with `env` substituted. */
export function readStack(source: string, env: Readonly<Record<string, string | undefined>>): { written: Dict; rendered: Dict } {
  const written = parse(source, { merge: true }) as unknown;
  if (!isDict(written)) throw new Error('a stack file is a mapping');
  return { written, rendered: interpolateAll(written, env) as Dict };
}

export const servicesOf = (stack: Dict): Record<string, Dict> =>
  isDict(stack['services']) ? (Object.fromEntries(Object.entries(stack['services']).filter(([, service]) => isDict(service))) as Record<string, Dict>) : {};

/** A service's environment as a map (the list form `NAME=value` too). */
export function environmentOf(service: Dict): Record<string, string> {
  const environment = service['environment'];
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const [name = '', ...rest] = String(entry).split('=');
        return [name, rest.join('=')];
      }),
    );
  }
  return isDict(environment) ? Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, value === null || value === undefined ? '' : String(value)])) : {};
}

/** `deploy.<path>` of a service. */
export function deployOf(service: Dict, ...path: string[]): unknown {
  let value: unknown = service['deploy'];
  for (const key of path) value = isDict(value) ? value[key] : undefined;
  return value;
}

/** A compose duration (`15s`, `1m30s`, `500ms`) in milliseconds; undefined when unreadable. */
export function durationMs(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|ns))+$/.test(value)) return undefined;
  const scale: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001, ns: 0.000001 };
  let total = 0;
  for (const match of value.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/g)) total += Number(match[1]) * (scale[match[2] as string] as number);
  return total;
}

/** A swarm memory size (`768M`, `1G`, `805306368`) in MiB; undefined when unreadable. */
export function memoryMiB(value: unknown): number | undefined {
  if (typeof value === 'number') return value / 2 ** 20;
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)b?$/i.exec(value.trim());
  if (!match) return undefined;
  const scale = { '': 1 / 2 ** 20, k: 1 / 2 ** 10, m: 1, g: 2 ** 10 }[(match[2] as string).toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(match[1]) * scale;
}
