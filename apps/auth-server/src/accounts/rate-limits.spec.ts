import type { FastifyRequest } from 'fastify';
import { namedClientId } from './rate-limits';

const request = (headers: Record<string, string>, body?: unknown, ip = '203.0.113.7') => ({ headers, body, ip }) as FastifyRequest;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('namedClientId (the key of the per-client token limit)', () => {
  it('reads HTTP Basic first (form-decoded, RFC 6749 §2.3.1), then the form', () => {
    expect(namedClientId(request({ authorization: basic('my%20client', 's') }))).toBe('my client');
    expect(namedClientId(request({ authorization: basic('my%20client', 's') }, { client_id: 'my client' }))).toBe('my client');
    expect(namedClientId(request({}, { client_id: 'x' }))).toBe('x');
  });

  it('names no client when the request names none or could not authenticate anyway', () => {
    expect(namedClientId(request({}, { client_id: '' }))).toBeUndefined();
    expect(namedClientId(request({}, undefined))).toBeUndefined();
    expect(namedClientId(request({}, { client_id: ['x', 'y'] }))).toBeUndefined();
    expect(namedClientId(request({ authorization: 'Basic !!!' }, { client_id: 'x' }))).toBeUndefined();
  });
});

describe('namedClientId for a client_id URL (Client ID Metadata Documents)', () => {
  it('counts per host and caller address: a public client_id shared by every user cannot be locked by one caller', () => {
    const claude = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
    expect(namedClientId(request({}, { client_id: claude }, '198.51.100.1'))).toBe('claude.ai 198.51.100.1');
    expect(namedClientId(request({}, { client_id: claude }, '198.51.100.2'))).toBe('claude.ai 198.51.100.2');
    // Another document URL of the same host from the same caller shares the budget.
    expect(namedClientId(request({}, { client_id: 'https://claude.ai/other/metadata.json' }, '198.51.100.1'))).toBe('claude.ai 198.51.100.1');
    // IPv6 callers count per /64, as the per-address limits do.
    expect(namedClientId(request({}, { client_id: claude }, '2001:db8:1:2::5'))).toBe('claude.ai 2001:db8:1:2::/64');
  });
});
