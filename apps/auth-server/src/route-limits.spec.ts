import type { FastifyRequest } from 'fastify';
import { namedClientId } from './route-limits';

const request = (headers: Record<string, string>, body?: unknown, ip = '203.0.113.7') => ({ headers, body, ip }) as FastifyRequest;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('namedClientId (part of the introspection limit’s key, with the caller’s address)', () => {
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

  it('reads a client_id URL (Client ID Metadata Documents) as it is: the address is the other half of the key', () => {
    const claude = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
    expect(namedClientId(request({}, { client_id: claude }, '198.51.100.1'))).toBe(claude);
  });
});
