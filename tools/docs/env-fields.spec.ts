import { z } from 'zod';
import { describeEnvField } from './env-fields';

const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema);

describe('describeEnvField', () => {
  it.each([
    ['a flag with a default', 'X_ENABLED', flag.default(true), { fallback: 'true', required: false, values: '`true` or `false` (`1`, `0`)' }],
    ['an optional flag', 'SEED', flag.optional(), { fallback: undefined, required: false, values: '`true` or `false` (`1`, `0`)' }],
    ['an enum', 'LEVEL', z.enum(['a', 'b']).default('a'), { fallback: 'a', required: false, values: 'one of `a`, `b`' }],
    ['bounded integer seconds', 'GRACE_SECONDS', z.coerce.number().int().min(0).max(300).default(30), { fallback: '30', required: false, values: 'seconds, 0–300' }],
    ['positive integer (int() alone bounds nothing)', 'TTL_SECONDS', z.coerce.number().int().positive().default(60), { fallback: '60', required: false, values: 'seconds, at least 1' }],
    ['milliseconds', 'TIMEOUT_MS', z.coerce.number().int().min(100).max(30_000).default(3_000), { fallback: '3000', required: false, values: 'milliseconds, 100–30,000' }],
    ['a count', 'PER_IP', z.coerce.number().int().min(1).max(1_000_000_000).default(30), { fallback: '30', required: false, values: 'integer, 1–1,000,000,000' }],
    ['a required URL with schemes', 'DATABASE_URL', z.url({ protocol: /^postgres(ql)?$/ }), { fallback: undefined, required: true, values: 'URL (`postgres:`, `postgresql:`)' }],
    ['a secret with a minimum length', 'SECRET', z.string().min(16), { fallback: undefined, required: true, values: 'text, at least 16 characters' }],
    ['text with a maximum length', 'ID', z.string().min(1).max(100).default('x'), { fallback: 'x', required: false, values: 'text, 1–100 characters' }],
    ['a list parsed from text (read from its input)', 'HOSTS', z.string().default('').transform((value) => value.split(',')).pipe(z.array(z.string())), { fallback: '', required: false, values: 'text' }],
    ['a preprocessed field (read from its output)', 'PORT', unsetWhenEmpty(z.coerce.number().int().min(0).max(65535).default(3000)), { fallback: '3000', required: false, values: 'integer, 0–65,535' }],
    ['an optional preprocessed URL', 'PUBLIC_BASE_URL', unsetWhenEmpty(z.url({ protocol: /^https?$/ }).optional()), { fallback: undefined, required: false, values: 'URL (`http:`, `https:`)' }],
  ] as const)('%s', (_case, name, field, expected) => {
    expect(describeEnvField(name, field as z.ZodType)).toEqual(expected);
  });
});
