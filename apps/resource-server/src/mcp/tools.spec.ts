import { ANONYMOUS, type TokenPrincipal } from '@platform/bearer-auth';
import { ALL_SCOPES, OIDC_SCOPES } from '@platform/scopes';
import { z } from 'zod';
import { scopeChallenge } from './scope-challenge';
import { MCP_TOOLS, mcpScopes, missingScopes, renderMcpToolTable, toolNamed } from './tools';

const METADATA = 'https://learn.example.com/.well-known/oauth-protected-resource/mcp';
const CONTEXT = { resourceMetadataUrl: METADATA, dpopAlgorithms: ['ES256'] };
const token = (...scopes: string[]): TokenPrincipal => ({
  kind: 'token',
  schoolId: 'demo-school',
  userId: 'user-1',
  clientId: 'agent-1',
  scopes,
  expiresAt: 2_000_000_000,
});
const callOf = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

describe('the tool definitions', () => {
  it('have unique names in the MCP tool-name alphabet', () => {
    const names = MCP_TOOLS.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
  });

  it('take their scopes from the catalogue, never OIDC scopes', () => {
    for (const tool of MCP_TOOLS) {
      for (const scope of tool.scopes) {
        expect(ALL_SCOPES).toContain(scope);
        expect(OIDC_SCOPES).not.toContain(scope);
      }
    }
  });

  it('cover what issue 10 asks for, each with the scope of its REST route', () => {
    const scopesOf = Object.fromEntries(MCP_TOOLS.map((tool) => [tool.name, tool.scopes]));
    expect(scopesOf).toMatchObject({
      list_students: ['students:read'],
      get_student: ['students:read'],
      list_student_enrollments: ['students:read'],
      list_members: ['members:read'],
      list_orders: ['orders:read'],
      list_security_events: ['audit_log:read'],
      revenue_report: ['analytics:read'],
      enrollments_report: ['analytics:read'],
      top_courses: ['analytics:read'],
      list_coupons: ['coupons:read'],
      create_coupon: ['coupons:write'],
      create_course: ['courses:write'],
      update_course: ['courses:write'],
      add_section: ['curriculum:write'],
      add_lesson: ['curriculum:write'],
      create_event: ['events:write'],
      create_post: ['posts:write'],
      list_courses: [],
      get_school_profile: [],
    });
  });

  it('state consistent annotations: reads are read-only and safe, writes are not read-only', () => {
    for (const tool of MCP_TOOLS) {
      const writes = tool.scopes.some((scope) => scope.endsWith(':write'));
      expect(tool.annotations.readOnlyHint).toBe(!writes);
      if (tool.annotations.readOnlyHint) expect(tool.annotations.destructiveHint).toBe(false);
      expect(tool.annotations.openWorldHint).toBe(false);
    }
    expect(toolNamed('update_course')?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(toolNamed('create_post')?.annotations).toMatchObject({ destructiveHint: false, idempotentHint: false });
  });

  it('have object input and output schemas (MCP structuredContent is an object)', () => {
    for (const tool of MCP_TOOLS) {
      expect(tool.input).toBeInstanceOf(z.ZodObject);
      expect(tool.output).toBeInstanceOf(z.ZodObject);
    }
  });
});

describe('scopes', () => {
  it('mcpScopes: the scopes the tools use, in catalogue order, no OIDC or offline_access', () => {
    expect(mcpScopes()).toEqual([
      'courses:write',
      'curriculum:write',
      'posts:write',
      'events:write',
      'students:read',
      'members:read',
      'orders:read',
      'coupons:read',
      'coupons:write',
      'analytics:read',
      'audit_log:read',
    ]);
  });

  it('missingScopes: all of them for an anonymous caller, none for a token with them', () => {
    const tool = toolNamed('create_coupon');
    if (!tool) throw new Error('create_coupon is not defined');
    expect(missingScopes(tool, ANONYMOUS)).toEqual(['coupons:write']);
    expect(missingScopes(tool, token('coupons:read'))).toEqual(['coupons:write']);
    expect(missingScopes(tool, token('coupons:write'))).toEqual([]);
  });
});

describe('scopeChallenge (MCP step-up)', () => {
  it('nothing for public tools, other methods, unknown tools, or a token with the scopes', () => {
    expect(scopeChallenge(callOf('list_courses'), ANONYMOUS, CONTEXT)).toBeUndefined();
    expect(scopeChallenge({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, ANONYMOUS, CONTEXT)).toBeUndefined();
    expect(scopeChallenge(callOf('no_such_tool'), ANONYMOUS, CONTEXT)).toBeUndefined();
    expect(scopeChallenge(callOf('list_students'), token('students:read'), CONTEXT)).toBeUndefined();
    expect(scopeChallenge('not json-rpc', ANONYMOUS, CONTEXT)).toBeUndefined();
  });

  it('anonymous: 401 with the scopes and the metadata, no error code (RFC 6750 §3.1)', () => {
    const error = scopeChallenge(callOf('list_orders'), ANONYMOUS, CONTEXT);
    expect(error?.status).toBe(401);
    expect(error?.headers['www-authenticate']).toBe(
      `Bearer scope="orders:read", resource_metadata="${METADATA}", DPoP scope="orders:read", resource_metadata="${METADATA}", algs="ES256"`,
    );
  });

  it('a token without the scope: 403 insufficient_scope naming every scope the call needs', () => {
    const error = scopeChallenge(callOf('create_event'), token('students:read'), CONTEXT);
    expect(error?.status).toBe(403);
    expect(error?.toBody()).toEqual({ error: 'insufficient_scope', error_description: 'The access token lacks a required scope: events:write' });
    expect(error?.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", error_description="The access token lacks a required scope: events:write", scope="events:write", resource_metadata="${METADATA}"`,
    );
  });

  it('a DPoP token without the scope: 403 in the DPoP scheme (RFC 9449 §7.1)', () => {
    const error = scopeChallenge(callOf('create_event'), token('students:read'), CONTEXT, 'DPoP');
    expect(error?.headers['www-authenticate']).toBe(
      `DPoP error="insufficient_scope", error_description="The access token lacks a required scope: events:write", scope="events:write", resource_metadata="${METADATA}", algs="ES256"`,
    );
  });

  it('a batch: the union of the scopes of the calls that lack some', () => {
    const error = scopeChallenge([callOf('list_students', 1), callOf('create_post', 2), callOf('list_coupons', 3)], token('students:read'), CONTEXT);
    expect(error?.headers['www-authenticate']).toContain('scope="posts:write coupons:read"');
  });
});

describe('renderMcpToolTable', () => {
  it('one row per tool, from the definitions', () => {
    const table = renderMcpToolTable();
    const lines = table.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['| Tool | Scopes | What it does |', '| --- | --- | --- |']);
    expect(lines).toHaveLength(MCP_TOOLS.length + 2);
    expect(lines).toContain(`| \`create_coupon\` | \`coupons:write\` | ${toolNamed('create_coupon')?.description} |`);
    expect(lines).toContain(`| \`list_courses\` | none (public) | ${toolNamed('list_courses')?.description} |`);
  });
});
