import { ConfigError, loadResourceConfig } from '../config/resource-config';
import { McpBrowserOrigins, mcpAllowedOriginsEnv } from './mcp-origins';

describe('MCP_ALLOWED_ORIGINS', () => {
  it.each([
    ['', []],
    ['https://agent.example.com', ['https://agent.example.com']],
    [' HTTPS://Agent.Example.com:443/ , http://localhost:6274,https://agent.example.com', ['https://agent.example.com', 'http://localhost:6274']],
    ['http://127.0.0.1:8080', ['http://127.0.0.1:8080']],
  ])('%j is read as the origins %j (normalized, duplicates once)', (value, origins) => {
    expect(mcpAllowedOriginsEnv.parse(value)).toEqual(origins);
  });

  it('unset: the public origin only', () => {
    expect(mcpAllowedOriginsEnv.parse(undefined)).toEqual([]);
  });

  it.each(['*', 'null', 'https://agent.example.com/app', 'https://agent.example.com?x=1', 'https://agent.example.com#top', 'ftp://agent.example.com', 'https://user@agent.example.com', 'agent.example.com', 'https://a.example,*'])(
    '%j is refused with a message naming what an origin is',
    (value) => {
      const result = mcpAllowedOriginsEnv.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toContain('is not an origin: write scheme://host[:port]');
    },
  );
});

describe('MCP_ALLOWED_ORIGINS in the resource server configuration', () => {
  const minimal = { DATABASE_URL: 'postgresql://postgres:postgres@127.0.0.1:5432/resource', INTROSPECTION_CLIENT_SECRET: 'a-secret-of-sixteen+' };

  it('is read into mcpAllowedOrigins; unset, it is empty (the public origin only)', () => {
    expect(loadResourceConfig(minimal).mcpAllowedOrigins).toEqual([]);
    expect(loadResourceConfig({ ...minimal, MCP_ALLOWED_ORIGINS: 'https://agent.example.com/' }).mcpAllowedOrigins).toEqual(['https://agent.example.com']);
  });

  it('stops the service with a message naming the variable', () => {
    expect(() => loadResourceConfig({ ...minimal, MCP_ALLOWED_ORIGINS: '*' })).toThrow(ConfigError);
    expect(() => loadResourceConfig({ ...minimal, MCP_ALLOWED_ORIGINS: '*' })).toThrow(/MCP_ALLOWED_ORIGINS.*"\*" is not an origin/);
  });
});

describe('McpBrowserOrigins', () => {
  const origins = new McpBrowserOrigins('https://learn.example.com', ['http://localhost:6274']);

  it('allows the public origin and the configured ones, exactly', () => {
    expect(origins.allows('https://learn.example.com')).toBe(true);
    expect(origins.allows('http://localhost:6274')).toBe(true);
    expect(origins.origins).toEqual(['https://learn.example.com', 'http://localhost:6274']);
  });

  it.each(['https://evil.example', 'http://learn.example.com', 'https://learn.example.com.evil.example', 'null', 'http://localhost:6275'])('refuses %s', (origin) => {
    expect(origins.allows(origin)).toBe(false);
  });
});
