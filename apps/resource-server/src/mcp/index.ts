export { McpModule } from './mcp.module';
export { MCP_OPTIONS, type McpOptions, mcpResource, mcpResourceMetadataUrl, mcpAudiences } from './mcp-options';
export { SCHOOL_SERVICES, type SchoolServices } from './school-services';
export { MCP_TOOLS, mcpScopes, renderMcpToolTable } from './tools';
export type { McpTool } from './tool-definition';
export { McpBrowserOrigins, mcpAllowedOriginsEnv } from './mcp-origins';
export { registerMcpHttpPolicy } from './mcp-http-policy';
