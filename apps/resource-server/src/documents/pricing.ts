import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { z } from 'zod';
import { DEFAULT_RESOURCE_NAME, type DocumentsOptions } from './documents-options';
import { RESOURCE_PATHS } from '../common/resource-paths';
import { table } from './markdown';

/** The environment variable naming the pricing data file (YAML, or JSON which is YAML too). */
export const PRICING_FILE_ENV = 'PRICING_FILE';

const UNLIMITED = 'unlimited';
const count = z.union([z.number().int().nonnegative(), z.literal(UNLIMITED)]);
const text = z.string().trim().min(1);

const planSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes'),
  name: text,
  summary: text,
  /** In the file's currency; `custom`: priced by quote. */
  price: z.union(
    [
      z.strictObject({ monthly: z.number().nonnegative(), yearly: z.number().nonnegative().optional() }),
      z.literal('custom'),
    ],
    { error: 'must be { monthly, yearly (optional) } with amounts of 0 or more, or "custom"' },
  ),
  transaction_fee_percent: z.number().min(0).max(100),
  limits: z.strictObject({
    courses: count,
    students: count,
    team_members: count,
    storage_gb: count,
  }),
  api: z.strictObject({
    requests_per_minute: z.number().int().positive(),
    requests_per_day: count,
    mcp: z.boolean(),
  }),
  features: z.array(text).default([]),
  contact: z.email().optional(),
});

const pricingSchema = z
  .strictObject({
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'),
    notes: z.array(text).default([]),
    plans: z.array(planSchema).min(1),
  })
  .superRefine((pricing, context) => {
    const seen = new Set<string>();
    pricing.plans.forEach((plan, index) => {
      if (seen.has(plan.id)) {
        context.addIssue({ code: 'custom', path: ['plans', index, 'id'], message: `duplicate plan id "${plan.id}"` });
      }
      seen.add(plan.id);
    });
  });

export type Pricing = z.infer<typeof pricingSchema>;
export type Plan = Pricing['plans'][number];

export class PricingFileError extends Error {
  constructor(file: string, detail: string) {
    super(`Invalid pricing file ${file}: ${detail}`);
    this.name = 'PricingFileError';
  }
}

/**
 * The pricing file: `PRICING_FILE` when set (relative to the working directory), otherwise
 * `data/pricing.yaml` next to the bundle (dist/apps/resource-server/data/pricing.yaml, where
 * the build copies it) or, when running from source, apps/resource-server/data/pricing.yaml.
 */
export function resolvePricingFile(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[PRICING_FILE_ENV];
  if (configured) return isAbsolute(configured) ? configured : resolve(configured);
  const candidates = [join(__dirname, 'data', 'pricing.yaml'), join(__dirname, '..', '..', 'data', 'pricing.yaml')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new Error(`No pricing file: set ${PRICING_FILE_ENV}, or ship data/pricing.yaml (looked in ${candidates.join(', ')})`);
  }
  return found;
}

/** Reads and validates the pricing file; every problem names the file, the field and its line. */
export function loadPricingFile(file: string): Pricing {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PricingFileError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return parsePricing(source, file);
}

export function parsePricing(source: string, file: string): Pricing {
  const lineCounter = new LineCounter();
  const document = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntaxError = document.errors[0];
  if (syntaxError) {
    const { line, col } = lineCounter.linePos(syntaxError.pos[0]);
    throw new PricingFileError(file, `${syntaxError.message} (line ${line}, column ${col})`);
  }
  const result = pricingSchema.safeParse(document.toJS());
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
    const line = lineOf(document.contents, path, lineCounter);
    return `${formatPath(path)}: ${issue.message}${line ? ` (line ${line})` : ''}`;
  });
  throw new PricingFileError(file, problems.join('; '));
}

/** `plans[2].price.monthly`, the way an operator finds the field in the file. */
function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');
}

/** The line of the deepest node of `path` that exists: the field itself, or its parent when missing. */
function lineOf(root: unknown, path: readonly (string | number)[], lineCounter: LineCounter): number | undefined {
  let node = root as Node | null;
  let offset = node?.range?.[0];
  for (const key of path) {
    const next: unknown = isMap(node) ? node.get(key, true) : isSeq(node) ? node.get(Number(key), true) : undefined;
    if (!next || typeof next !== 'object') break;
    node = next as Node;
    offset = node.range?.[0] ?? offset;
  }
  return offset === undefined ? undefined : lineCounter.linePos(offset).line;
}

function money(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: Number.isInteger(amount) ? 0 : 2,
  }).format(amount);
}

/** `Unlimited` in a table cell, `unlimited` within a sentence. */
function quantity(value: number | typeof UNLIMITED, unit = '', inSentence = false): string {
  if (value === UNLIMITED) return inSentence ? 'unlimited' : 'Unlimited';
  return `${value.toLocaleString('en-US')}${unit}`;
}

function monthlyPrice(plan: Plan, currency: string): string {
  if (plan.price === 'custom') return 'Custom';
  return plan.price.monthly === 0 ? 'Free' : `${money(plan.price.monthly, currency)}/month`;
}

function yearlyPrice(plan: Plan, currency: string): string {
  if (plan.price === 'custom') return 'Custom';
  if (plan.price.monthly === 0) return 'Free';
  return plan.price.yearly === undefined ? '—' : `${money(plan.price.yearly, currency)}/year`;
}

/** `/pricing.md`: the plans of the data file as a comparison table and a section per plan. */
export function renderPricing(pricing: Pricing, options: Pick<DocumentsOptions, 'publicBaseUrl' | 'resourceName'>): string {
  const { currency, plans } = pricing;
  const name = options.resourceName ?? DEFAULT_RESOURCE_NAME;
  const comparison = table(
    ['Plan', 'Monthly', 'Yearly', 'Courses', 'Students', 'Team members', 'Storage', 'Transaction fee', 'API rate limit', 'MCP'],
    plans.map((plan) => [
      plan.name,
      monthlyPrice(plan, currency),
      yearlyPrice(plan, currency),
      quantity(plan.limits.courses),
      quantity(plan.limits.students),
      quantity(plan.limits.team_members),
      quantity(plan.limits.storage_gb, ' GB'),
      `${plan.transaction_fee_percent}%`,
      `${quantity(plan.api.requests_per_minute)}/min, ${quantity(plan.api.requests_per_day)}/day`,
      plan.api.mcp ? 'Yes' : 'No',
    ]),
  );
  const sections = plans.map((plan) => {
    const lines = [
      `### ${plan.name}`,
      '',
      plan.summary,
      '',
      `- Price: ${monthlyPrice(plan, currency)}${plan.price !== 'custom' && plan.price.yearly !== undefined && plan.price.monthly > 0 ? ` or ${yearlyPrice(plan, currency)}` : ''}`,
      `- Courses: ${quantity(plan.limits.courses, '', true)}; students: ${quantity(plan.limits.students, '', true)}; ` +
        `team members: ${quantity(plan.limits.team_members, '', true)}; storage: ${quantity(plan.limits.storage_gb, ' GB', true)}`,
      `- Transaction fee: ${plan.transaction_fee_percent}% of each sale`,
      `- API: ${quantity(plan.api.requests_per_minute)} requests per minute, ${quantity(plan.api.requests_per_day, '', true)} per day` +
        (plan.api.mcp ? '; MCP endpoint included' : ''),
      ...plan.features.map((feature) => `- ${feature}`),
    ];
    if (plan.contact) lines.push(`- Contact: <mailto:${plan.contact}>`);
    return lines.join('\n');
  });
  const notes = pricing.notes.map((note) => `- ${note}`).join('\n');

  return `# Pricing: ${name}

> The plans of the platform, with their prices (${currency}), limits and API rate limits.

${comparison}

## Plans

${sections.join('\n\n')}
${notes ? `\n## Notes\n\n${notes}\n` : ''}
API access uses OAuth 2.0 tokens: see [${options.publicBaseUrl}${RESOURCE_PATHS.authGuide}](${options.publicBaseUrl}${RESOURCE_PATHS.authGuide}).
`;
}
