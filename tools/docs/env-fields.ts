import type { z } from 'zod';

/** One environment variable as its zod field reads it, in the words of the configuration page. */
export interface EnvField {
  /** The value taken when the variable is unset, as one would write it; undefined when there is none. */
  fallback?: string;
  /** Neither a default nor optional: the process does not start without it. */
  required: boolean;
  /** The values it takes: `true` or `false`, a range of integers, a URL's schemes, an enum's members, text. */
  values: string;
}

/** The zod 4 internals read here: every schema carries its definition under `_zod.def`. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  defaultValue?: unknown;
  entries?: Record<string, string | number>;
  options?: z.ZodType[];
  checks?: Array<{ _zod: { def: Check } }>;
  format?: string;
  protocol?: RegExp;
}

interface Check {
  check: string;
  value?: number;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
  format?: string;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The flag the services read as a boolean (`z.enum(['true', 'false', '1', '0'])`). */
const FLAG_VALUES = ['0', '1', 'false', 'true'];
/** Schemes a URL variable may be limited to (`z.url({ protocol })`): those the platform uses. */
const URL_SCHEMES = ['http', 'https', 'postgres', 'postgresql', 'redis', 'rediss'];

const code = (value: unknown) => `\`${String(value)}\``;
const grouped = (value: number) => value.toLocaleString('en-US');

/** The unit a number's name gives it (`..._SECONDS`): the values column says it in place of "integer". */
function unitOf(name: string): string | undefined {
  if (name.endsWith('_SECONDS')) return 'seconds';
  if (name.endsWith('_MS')) return 'milliseconds';
  if (name.endsWith('_BYTES')) return 'bytes';
  return undefined;
}

function numberValues(name: string, def: Def): string {
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  const integer = checks.some((check) => check.check === 'number_format' && (check.format === 'safeint' || check.format === 'int32'));
  const step = integer ? 1 : 0;
  const lower = checks.find((check) => check.check === 'greater_than');
  const upper = checks.find((check) => check.check === 'less_than');
  const min = lower?.value === undefined ? undefined : lower.inclusive ? lower.value : lower.value + step;
  // int() alone bounds the value by Number.MAX_SAFE_INTEGER: no limit anyone configures.
  const max = upper?.value === undefined || upper.value >= Number.MAX_SAFE_INTEGER ? undefined : upper.inclusive ? upper.value : upper.value - step;
  const kind = (integer ? unitOf(name) : undefined) ?? (integer ? 'integer' : 'number');
  if (min !== undefined && max !== undefined) return `${kind}, ${grouped(min)}–${grouped(max)}`;
  if (min !== undefined) return `${kind}, at least ${grouped(min)}`;
  if (max !== undefined) return `${kind}, at most ${grouped(max)}`;
  return kind;
}

function stringValues(def: Def): string {
  if (def.format === 'url') {
    const schemes = def.protocol ? URL_SCHEMES.filter((scheme) => def.protocol?.test(scheme)) : [];
    return schemes.length > 0 ? `URL (${schemes.map((scheme) => code(`${scheme}:`)).join(', ')})` : 'URL';
  }
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  const min = checks.find((check) => check.check === 'min_length')?.minimum;
  const max = checks.find((check) => check.check === 'max_length')?.maximum;
  if (max !== undefined) return `text, ${grouped(min ?? 0)}–${grouped(max)} characters`;
  if (min !== undefined && min > 1) return `text, at least ${grouped(min)} characters`;
  return 'text';
}

function valuesOf(name: string, schema: z.ZodType): string {
  const def = defOf(schema);
  switch (def.type) {
    case 'enum': {
      const members = Object.values(def.entries ?? {}).map(String);
      if ([...members].sort().join() === FLAG_VALUES.join()) return '`true` or `false` (`1`, `0`)';
      return `one of ${members.map(code).join(', ')}`;
    }
    case 'number':
      return numberValues(name, def);
    case 'string':
      return stringValues(def);
    case 'union':
      return (def.options ?? []).map((option) => valuesOf(name, option)).join(' or ');
    default:
      return 'text';
  }
}

/**
 * What the environment gives a field: unwraps defaults, optionals and pipes down to the schema
 * that reads the raw text. A pipe is read from its input, except a preprocess step (a pipe out
 * of a transform), which hands the text on to its output.
 */
export function describeEnvField(name: string, field: z.ZodType): EnvField {
  let schema = field;
  let fallback: { value: unknown } | undefined;
  let optional = false;
  for (;;) {
    const def = defOf(schema);
    if ((def.type === 'default' || def.type === 'prefault') && def.innerType) {
      fallback ??= { value: def.defaultValue };
      schema = def.innerType;
    } else if ((def.type === 'optional' || def.type === 'nullable') && def.innerType) {
      optional = true;
      schema = def.innerType;
    } else if (def.type === 'pipe' && def.in && def.out) {
      schema = defOf(def.in).type === 'transform' ? def.out : def.in;
    } else {
      break;
    }
  }
  return {
    fallback: fallback === undefined ? undefined : String(fallback.value),
    required: fallback === undefined && !optional,
    values: valuesOf(name, schema),
  };
}
