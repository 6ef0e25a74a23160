import { isMcpPath } from './mcp-http-policy';

describe('isMcpPath', () => {
  it.each(['/mcp', '/mcp?x=1', '/mcp?'])('%s is /mcp', (url) => expect(isMcpPath(url)).toBe(true));
  it.each(['/mcpx', '/mcp/', '/mcp/x', '/api/v1/courses', '/', '/.well-known/oauth-protected-resource/mcp'])('%s is not', (url) => expect(isMcpPath(url)).toBe(false));
});
