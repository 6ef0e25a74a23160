import { Logger } from '@nestjs/common';
import { platformEventSchema, type SecurityEvent } from '@platform/contracts';
import type { SecurityEventOutbox } from './security-event-outbox';
import { securityEventOf } from './security-event';
import { SecurityEvents } from './security-events';

describe('securityEventOf', () => {
  it('fills in the id, the time and the request id, in the ingest’s shape', () => {
    const event = securityEventOf(
      { type: 'auth.sign_in.succeeded', schoolId: 'demo-school', actor: { type: 'user', id: 'user-1' }, address: '203.0.113.7', data: { method: 'password' } },
      new Date('2026-11-28T10:00:00.000Z'),
      'req-1',
    );
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      type: 'auth.sign_in.succeeded',
      occurred_at: '2026-11-28T10:00:00.000Z',
      school_id: 'demo-school',
      actor: { type: 'user', id: 'user-1' },
      subject: null,
      client_id: null,
      address: '203.0.113.7',
      request_id: 'req-1',
      outcome: 'success',
      data: { method: 'password' },
    });
    expect(platformEventSchema.safeParse(event).success).toBe(true);
  });

  it('has no request id outside a request', () => {
    expect(securityEventOf({ type: 'auth.integration.changed', schoolId: null, actor: { type: 'staff', id: null } }).request_id).toBeNull();
  });
});

describe('SecurityEvents.record', () => {
  it('never fails the request it records: an outbox error is logged with the event’s type and id', async () => {
    const outbox = { append: jest.fn(async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'))) };
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const events = new SecurityEvents(outbox as unknown as SecurityEventOutbox);

    await expect(events.record({ type: 'auth.sign_in.failed', schoolId: null, actor: { type: 'user', id: null }, outcome: 'failure' })).resolves.toBeUndefined();

    const [event] = outbox.append.mock.calls[0] as unknown as [SecurityEvent];
    expect(logged).toHaveBeenCalledWith(`security event auth.sign_in.failed ${event.id} not recorded: connect ECONNREFUSED 127.0.0.1:5432`);
    logged.mockRestore();
  });
});
