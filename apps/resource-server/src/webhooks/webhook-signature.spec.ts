import { Webhook } from 'standardwebhooks';
import { newSigningSecret, signedHeaders } from './webhook-signature';

describe('Standard Webhooks signatures', () => {
  const body = JSON.stringify({ type: 'order.created', data: { id: 'o-1' } });
  const id = '0193a6f0-0000-7000-8000-000000000001';

  it('verify with the standard’s own library', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = signedHeaders([secret], id, Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('carry one signature per secret during a rotation: either secret verifies', () => {
    const [next, previous] = [newSigningSecret(), newSigningSecret()];
    const headers = signedHeaders([next, previous], id, Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(next).verify(body, headers)).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers)).toBeTruthy();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow('No matching signature found');
  });

  it('cover the id, the timestamp and the exact body', () => {
    const secret = newSigningSecret();
    const now = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([secret], id, now, body);
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': `${id}x` })).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(now - 1) })).toThrow();
    expect(() => new Webhook(secret).verify(body, signedHeaders([secret], id, now - 600, body))).toThrow('Message timestamp too old');
  });
});
