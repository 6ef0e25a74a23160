import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { ALL_SCOPES } from '@platform/scopes';
import { buildMcpProtectedResourceMetadata, buildProtectedResourceMetadata } from './protected-resource-metadata';
import { TEST_OPTIONS } from '../../test/support/documents-options';

describe('protected resource metadata (RFC 9728)', () => {
  it('names the canonical resource, its authorization server, every scope and the guide', () => {
    expect(buildProtectedResourceMetadata(TEST_OPTIONS)).toEqual({
      resource: 'https://learn.example.com',
      authorization_servers: ['https://learn.example.com'],
      scopes_supported: [...ALL_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Course Platform API',
      resource_documentation: 'https://learn.example.com/auth.md',
      dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGORITHMS],
      dpop_bound_access_tokens_required: false,
    });
  });

  it('lists the 42 scopes in catalogue order', () => {
    const metadata = buildProtectedResourceMetadata(TEST_OPTIONS);
    expect(metadata.scopes_supported).toHaveLength(42);
    expect(metadata.scopes_supported.slice(0, 4)).toEqual(['openid', 'profile', 'email', 'courses:read']);
  });

  it('advertises DPoP (RFC 9449 §5.1) with asymmetric algorithms only, without requiring it', () => {
    const metadata = buildProtectedResourceMetadata(TEST_OPTIONS);
    expect(metadata.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256', 'EdDSA']));
    expect(metadata.dpop_signing_alg_values_supported.filter((alg) => /^(HS|none)/i.test(alg))).toEqual([]);
    expect(metadata.dpop_bound_access_tokens_required).toBe(false);
  });

  it('uses the configured resource name', () => {
    expect(buildProtectedResourceMetadata({ ...TEST_OPTIONS, resourceName: 'Academy API' }).resource_name).toBe('Academy API');
  });
});

describe('protected resource metadata of /mcp (RFC 9728 §3.3)', () => {
  const mcp = buildMcpProtectedResourceMetadata({ ...TEST_OPTIONS, mcpScopes: ['students:read', 'coupons:write', 'offline_access'] });

  it('names {base}/mcp exactly, the resource its URL was built from', () => {
    expect(mcp).toEqual({
      resource: 'https://learn.example.com/mcp',
      authorization_servers: ['https://learn.example.com'],
      scopes_supported: ['students:read', 'coupons:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Course Platform MCP server',
      resource_documentation: 'https://learn.example.com/auth.md',
      dpop_signing_alg_values_supported: [...DPOP_SIGNING_ALGORITHMS],
      dpop_bound_access_tokens_required: false,
    });
  });

  it('lists only the scopes the tools use, never offline_access', () => {
    expect(mcp.scopes_supported).not.toContain('offline_access');
    expect(buildMcpProtectedResourceMetadata(TEST_OPTIONS).scopes_supported).toEqual([]);
  });
});
