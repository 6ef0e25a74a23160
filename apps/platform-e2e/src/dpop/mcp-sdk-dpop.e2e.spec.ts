/**
 * The MCP TypeScript SDK v2 client's own DPoP support (SEP-1932) against /mcp through the origin:
 * an OAuthClientProvider whose dpop() answers a DpopSession gets its token request proven, holds
 * a DPoP-bound token, and sends every /mcp request with the DPoP scheme and a fresh proof; the
 * step-up on a 403 insufficient_scope challenged in the DPoP scheme.
 */
import { Client, DpopSession, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { Person, PersonDrivenProvider } from '../mcp/form-walker-provider';
import { baseUrl } from '../support/platform';

jest.setTimeout(120_000);

/** The suite's provider (the person at the browser) with a DPoP key for the whole registration. */
class DpopPersonProvider extends PersonDrivenProvider {
  private readonly session = DpopSession.create({ alg: 'ES256' });

  /** The token type of what the authorization server issued, as the provider saved it. */
  tokenType?: string;

  dpop(): Promise<DpopSession> {
    return this.session;
  }

  override saveTokens(tokens: { access_token: string; scope?: string; token_type?: string }): void {
    this.tokenType = tokens.token_type;
    super.saveTokens(tokens);
  }
}

describe('the MCP SDK v2 client with DPoP', () => {
  const provider = new DpopPersonProvider(new Person(), 'e2e MCP SDK v2 with DPoP');
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl()}/mcp`), { authProvider: provider });
  const client = new Client({ name: 'e2e-sdk-v2-dpop', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });

  afterAll(() => client.close());

  it('a private tool: 401 → consent → a DPoP-bound token → the call, with a proof', async () => {
    await client.connect(transport);
    await expect(client.callTool({ name: 'list_students', arguments: {} })).rejects.toThrow(UnauthorizedError);
    await transport.finishAuth(provider.takeCallback().searchParams);
    expect(provider.tokenType).toMatch(/^dpop$/i);
    const students = await client.callTool({ name: 'list_students', arguments: { limit: 2 } });
    expect(students.isError).toBeFalsy();
    expect((students.structuredContent as { data: unknown[] }).data).toHaveLength(2);
  });

  it('the same token without its proof is refused: /mcp does not take it as Bearer', async () => {
    const token = provider.accessToken() as string;
    const response = await fetch(`${baseUrl()}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_students', arguments: {} } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it('step-up: 403 insufficient_scope in the DPoP scheme → re-authorization → the retried call', async () => {
    const code = `DPOP${Date.now().toString(36).toUpperCase()}`.slice(0, 32);
    await expect(client.callTool({ name: 'create_coupon', arguments: { code, percent_off: 10 } })).rejects.toThrow(UnauthorizedError);
    expect(provider.person.consents.at(-1)?.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['coupons:write']));
    await transport.finishAuth(provider.takeCallback().searchParams);
    const coupon = await client.callTool({ name: 'create_coupon', arguments: { code, percent_off: 10 } });
    expect(coupon.isError).toBeFalsy();
    expect(coupon.structuredContent).toMatchObject({ code, percent_off: 10 });
  });
});
