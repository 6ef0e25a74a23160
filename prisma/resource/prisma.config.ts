import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { migrationAdapter } from '../migration-adapter';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join(__dirname, 'schema.prisma'),
  migrations: { path: path.join(__dirname, 'migrations') },
  adapter: async () => migrationAdapter(),
});
