// The services the launcher runs, in start order. A service whose app or Prisma schema does
// not exist yet is skipped, so the list can name services still to be written.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const SERVICES = [
  {
    name: 'auth',
    project: 'auth-server',
    schema: 'auth',
    portVar: 'AUTH_PORT',
    defaultPort: 3001,
    urlVar: 'AUTH_SERVER_URL',
    databaseUrlVar: 'AUTH_DATABASE_URL',
  },
  {
    name: 'resource',
    project: 'resource-server',
    schema: 'resource',
    portVar: 'RESOURCE_PORT',
    defaultPort: 3002,
    urlVar: 'RESOURCE_SERVER_URL',
    databaseUrlVar: 'RESOURCE_DATABASE_URL',
  },
];

export const GATEWAY = { name: 'gateway', project: 'gateway' };

export const mainOf = (root, project) => join(root, 'dist/apps', project, 'main.js');

export function existingServices(root) {
  return SERVICES.filter(
    (service) =>
      existsSync(join(root, 'apps', service.project, 'project.json')) &&
      existsSync(join(root, 'prisma', service.schema, 'schema.prisma')),
  );
}

export function portOf(service, env = process.env) {
  return Number(env[service.portVar] || service.defaultPort);
}
