export { McpModule } from './mcp.module';
export { MCP_OPTIONS, type McpOptions } from './mcp-options';
export { CATALOG_READER, type CatalogReader } from './catalog-reader';
