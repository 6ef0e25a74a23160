/** The resource server's public paths: its documents, the API and the MCP endpoint (read by the documents, /mcp, OpenAPI, the limits and the config). */
export const RESOURCE_PATHS = {
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
  /** The path-suffixed form for the MCP endpoint (RFC 9728 §3.1). */
  protectedResourceMetadataMcp: '/.well-known/oauth-protected-resource/mcp',
  authGuide: '/auth.md',
  llmsTxt: '/llms.txt',
  pricing: '/pricing.md',
  openApi: '/openapi.json',
  mcp: '/mcp',
  api: '/api/v1',
} as const;
