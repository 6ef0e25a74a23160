import { ALL_SCOPES, SCOPES } from '@platform/scopes';
import { spawnSync } from 'node:child_process';
import { MCP_PROTOCOL_VERSIONS } from '../mcp/mcp-server';
import { MCP_TOOLS, renderMcpToolTable } from '../mcp/tools';
import { CALLBACK_CHECK, JSON_HELPER, renderAuthGuide, renderScopeTable } from './auth-guide';
import { TEST_OPTIONS } from '../../test/support/documents-options';

describe('the authentication guide (/auth.md)', () => {
  const guide = renderAuthGuide(TEST_OPTIONS);

  it('builds every URL from the configured origin, never a hard-coded one', () => {
    expect(guide).not.toContain('127.0.0.1:3000');
    expect(guide).toContain("curl -s -w '\\n' https://learn.example.com/.well-known/oauth-protected-resource\n");
    expect(guide).toContain("curl -s -w '\\n' https://learn.example.com/.well-known/oauth-protected-resource/mcp");
    expect(guide).toContain('ISSUER=$(curl -s https://learn.example.com/.well-known/oauth-protected-resource | json authorization_servers.0)');
    expect(guide).toContain(`curl -s -w '\\n' "$ISSUER/.well-known/oauth-authorization-server"`);
  });

  it('registers a client with a loopback redirect URI', () => {
    expect(guide).toContain(
      `CLIENT_ID=$(curl -s https://learn.example.com/api/oauth/register -H 'content-type: application/json' \\\n` +
        `  -d '{"client_name":"My CLI","redirect_uris":["http://127.0.0.1:8765/callback"],"scope":"openid profile courses:read"}' | json client_id)`,
    );
  });

  it('shows how to make an S256 challenge with openssl and with node', () => {
    expect(guide).toContain("openssl dgst -sha256 -binary | openssl base64 -A | tr -d '=' | tr '+/' '-_'");
    expect(guide).toContain("createHash('sha256').update(process.argv[1]).digest('base64url')");
  });

  it('authorizes with every parameter, the resource and the state included', () => {
    expect(guide).toContain(
      'https://learn.example.com/oauth/authorize?response_type=code&client_id=$CLIENT_ID' +
        '&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback&scope=openid%20profile%20courses%3Aread&state=$STATE' +
        '&code_challenge=$CHALLENGE&code_challenge_method=S256&resource=https%3A%2F%2Flearn.example.com',
    );
    for (const parameter of ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource', 'nonce', 'prompt']) {
      expect(guide).toContain(`| \`${parameter}\` |`);
    }
  });

  it('tells the client to check state and iss on the callback (RFC 9207)', () => {
    expect(guide).toContain('http://127.0.0.1:8765/callback?code=...&state=...&iss=https%3A%2F%2Flearn.example.com');
    expect(guide).toMatch(/`iss` must equal\s+`https:\/\/learn\.example\.com`/);
  });

  it('exchanges, refreshes and revokes with curl against the token and revocation endpoints', () => {
    expect(guide).toContain('curl -s https://learn.example.com/api/oauth/token \\\n  -d grant_type=authorization_code');
    expect(guide).toContain('-d code_verifier="$VERIFIER"');
    expect(guide).toContain('curl -s https://learn.example.com/api/oauth/token \\\n  -d grant_type=refresh_token');
    expect(guide).toContain(
      `curl -s -o /dev/null -w '%{http_code}\\n' https://learn.example.com/api/oauth/revoke -d token="$REFRESH_TOKEN" -d token_type_hint=refresh_token -d client_id="$CLIENT_ID"`,
    );
    expect(guide).toContain('Always\nkeep the newest one');
  });

  it('explains the 401 and 403 challenges, resource_metadata and step-up', () => {
    expect(guide).toContain(`curl -s -w '\\n' https://learn.example.com/api/v1/courses -H "authorization: Bearer $ACCESS_TOKEN"`);
    expect(guide).toContain('resource_metadata="https://learn.example.com/.well-known/oauth-protected-resource"');
    expect(guide).toContain('error="insufficient_scope"');
    expect(guide).toContain('step up');
  });

  it('has one row per scope of the catalogue, with its description and group', () => {
    const rows = renderScopeTable(SCOPES).split('\n').slice(2);
    expect(rows).toHaveLength(42);
    expect(rows.map((row) => row.split(' | ')[0].replace('| ', ''))).toEqual(ALL_SCOPES.map((scope) => `\`${scope}\``));
    expect(rows).toContain('| `courses:write` | Create, edit and delete courses | Courses and content |');
    expect(rows).toContain('| `openid` | Sign you in and know who you are | Your identity |');
    expect(guide).toContain(renderScopeTable(SCOPES));
  });

  it('carries the MCP tool table generated from the tool definitions, and the step-up rule', () => {
    expect(guide).toContain(`\n${renderMcpToolTable()}`);
    for (const tool of MCP_TOOLS) expect(guide).toContain(`| \`${tool.name}\` |`);
    expect(guide).toContain('https://learn.example.com/.well-known/oauth-protected-resource/mcp');
    expect(guide).toMatch(/`tools\/list` shows every tool to every caller/);
    expect(guide).toContain('error="insufficient_scope"');
  });

  it('says one thing about the token audience: always the origin, whatever resource was asked for (the only audience issued)', () => {
    const audiences = [...guide.matchAll(/audience is\s+`([^`]+)`/g)].map((match) => match[1]);
    expect(audiences.length).toBeGreaterThanOrEqual(2);
    expect(new Set(audiences)).toEqual(new Set(['https://learn.example.com']));
    expect(guide).not.toMatch(/audience\s+`https:\/\/learn\.example\.com\/mcp`/);
    expect(guide).toContain('`resource=https://learn.example.com/mcp`');
  });

  it('names the MCP revisions served and how another one is negotiated', () => {
    for (const version of MCP_PROTOCOL_VERSIONS) expect(guide).toContain(version);
    expect(guide).toMatch(/An\s+`initialize` asking for another revision is answered with\s+`2025-11-25`/);
    expect(guide).toMatch(/`MCP-Protocol-Version` header names a revision it does not serve is\s+`400`/);
  });

  it('tells client authors what a client ID metadata document must contain', () => {
    expect(guide).toContain('## Hosted clients: a client ID metadata document');
    expect(guide).toContain('client_id_metadata_document_supported: true');
    for (const member of ['client_id', 'client_name', 'redirect_uris', 'token_endpoint_auth_method', 'grant_types']) {
      expect(guide).toContain(`\`${member}\``);
    }
    expect(guide).toMatch(/same origin as\s+the `client_id` URL/);
    const example = guide.match(/^```json\n(\{\n[\s\S]*?)^```$/m)?.[1] ?? '';
    expect(JSON.parse(example)).toMatchObject({ token_endpoint_auth_method: 'none', redirect_uris: ['https://app.example.com/oauth/callback'] });
  });

  it('links the connected-apps page of the issuer', () => {
    expect(guide).toContain('[https://learn.example.com/oauth/connected-apps](https://learn.example.com/oauth/connected-apps)');
  });

  describe('the walkthrough is runnable as written', () => {
    const script = bashBlocks(guide).join('\n');

    it('sets every variable with the commands themselves: nothing to paste by hand', () => {
      expect(script).not.toMatch(/=\.\.\./);
      for (const variable of ['ISSUER', 'CLIENT_ID', 'VERIFIER', 'CHALLENGE', 'STATE', 'CALLBACK', 'CODE', 'TOKENS', 'ACCESS_TOKEN', 'REFRESH_TOKEN']) {
        expect(script).toMatch(new RegExp(`^${variable}=\\$\\(`, 'm'));
      }
    });

    it('is valid bash', () => {
      const check = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
    });

    it('reads JSON members with the helper, and fails on an error answer', () => {
      const read = (input: string, member: string) => spawnSync('bash', ['-c', `${JSON_HELPER}\njson ${member}`], { input, encoding: 'utf8' });
      expect(read('{"authorization_servers":["https://learn.example.com"]}', 'authorization_servers.0').stdout).toBe('https://learn.example.com\n');
      const failed = read('{"error":"invalid_client"}', 'access_token');
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain('invalid_client');
    });

    it.each([
      ['a good callback', '/callback?code=abc&state=s1&iss=https%3A%2F%2Flearn.example.com', 0, 'abc\n'],
      ['a wrong state', '/callback?code=abc&state=s2&iss=https%3A%2F%2Flearn.example.com', 1, ''],
      ['a wrong iss', '/callback?code=abc&state=s1&iss=https%3A%2F%2Fevil.example', 1, ''],
      ['a refusal', '/callback?error=access_denied&state=s1&iss=https%3A%2F%2Flearn.example.com', 1, ''],
    ])('checks state and iss of the callback: %s', (_name, callback, status, code) => {
      const run = spawnSync('bash', ['-e', '-c', `CALLBACK='${callback}' STATE=s1 ISSUER=https://learn.example.com\n${CALLBACK_CHECK}\nprintf '%s\\n' "$CODE"`], { encoding: 'utf8' });
      expect(run.status).toBe(status);
      if (status === 0) expect(run.stdout).toBe(code);
    });

    it('revokes the current refresh token, the one the refresh step returned', () => {
      const refresh = script.lastIndexOf('REFRESH_TOKEN=$(printf');
      const revoke = script.indexOf('/api/oauth/revoke -d token="$REFRESH_TOKEN"');
      expect(refresh).toBeGreaterThan(script.indexOf('grant_type=refresh_token'));
      expect(revoke).toBeGreaterThan(refresh);
    });
  });
});

/** The ```bash blocks of a Markdown document, in order. */
function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
}
