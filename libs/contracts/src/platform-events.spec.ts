import {
  ALL_EVENT_TYPES,
  BUSINESS_EVENT_TYPES,
  forbiddenDataKeys,
  newEventId,
  platformEventSchema,
  SECURITY_EVENT_TYPES,
  securityEventBatchSchema,
} from './platform-events';

const event = (overrides: Record<string, unknown> = {}) => ({
  id: newEventId(),
  type: 'auth.sign_in.succeeded',
  occurred_at: '2026-11-30T10:00:00.000Z',
  school_id: 'demo-school',
  actor: { type: 'user', id: 'demo-owner' },
  subject: null,
  client_id: 'client-1',
  address: '203.0.113.9',
  request_id: 'req-1',
  outcome: 'success',
  data: { method: 'password' },
  ...overrides,
});

describe('the event catalogue', () => {
  it('names every type in the Standard Webhooks alphabet, each described, each security or business', () => {
    for (const type of ALL_EVENT_TYPES) expect(type).toMatch(/^[a-z0-9_]+(\.[a-z0-9_]+)+$/);
    expect([...SECURITY_EVENT_TYPES, ...BUSINESS_EVENT_TYPES].sort()).toEqual([...ALL_EVENT_TYPES].sort());
    expect(SECURITY_EVENT_TYPES.every((type) => type.startsWith('auth.'))).toBe(true);
  });

  it('draws time-ordered UUIDv7 ids', () => {
    const [a, b] = [newEventId(), newEventId()];
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
  });
});

describe('platformEventSchema', () => {
  it('accepts a well-formed event', () => {
    expect(platformEventSchema.safeParse(event()).success).toBe(true);
  });

  it.each([
    ['an unknown type', { type: 'auth.nothing' }],
    ['a non-uuid id', { id: 'abc' }],
    ['an unknown actor type', { actor: { type: 'robot', id: 'x' } }],
    ['an unknown field', { extra: 1 }],
    ['a password in data', { data: { password: 'hunter2' } }],
    ['a token nested in data', { data: { tokens: [{ refresh_token: 'x' }] } }],
    ['data over 4 KB', { data: { blob: 'x'.repeat(5000) } }],
  ])('refuses %s', (_name, overrides) => {
    expect(platformEventSchema.safeParse(event(overrides)).success).toBe(false);
  });

  it('lets hash prefixes and token types through', () => {
    expect(forbiddenDataKeys({ grant_id_prefix: 'ab12', token_type_hint: 'refresh_token', grant_type: 'authorization_code' })).toEqual([]);
    expect(forbiddenDataKeys({ client_secret: 'x', code: 'y', nested: { access_token: 'z' } })).toEqual([
      'data.client_secret',
      'data.code',
      'data.nested.access_token',
    ]);
  });
});

describe('securityEventBatchSchema', () => {
  it('takes security events only, 1 to 500 of them', () => {
    expect(securityEventBatchSchema.safeParse([event()]).success).toBe(true);
    expect(securityEventBatchSchema.safeParse([]).success).toBe(false);
    expect(securityEventBatchSchema.safeParse([event({ type: 'order.created' })]).success).toBe(false);
    expect(securityEventBatchSchema.safeParse(Array.from({ length: 501 }, () => event())).success).toBe(false);
  });
});
