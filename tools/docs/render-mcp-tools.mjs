#!/usr/bin/env node
// Rewrites the MCP tool table of docs/resource-server-and-mcp.md (between the mcp-tools markers) from
// renderMcpToolTable() of apps/resource-server/src/mcp/tools.ts, the definitions /mcp serves. The spec
// apps/resource-server/src/documents/readme-tool-table.spec.ts checks the same table in `npm test`;
// with UPDATE_DOCS_MCP_TOOLS=1 it writes it instead (jest compiles the TypeScript sources).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const jest = join(root, 'node_modules', '.bin', 'jest');
const run = spawnSync(jest, ['-c', 'apps/resource-server/jest.config.cjs', 'src/documents/readme-tool-table.spec.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, UPDATE_DOCS_MCP_TOOLS: '1' },
});
process.exit(run.status ?? 1);
