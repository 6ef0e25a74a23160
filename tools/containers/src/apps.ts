import type { AppImageSpec } from './dockerfile-rules';

export interface AppImage extends AppImageSpec {
  dockerfile: string;
  /** The file whose default for portVariable must equal port (the image and the app agree). */
  config: string;
}

/** The images of the platform's services: each app's own Dockerfile, port and config. */
export const APP_IMAGES: readonly AppImage[] = [
  {
    app: 'auth-server',
    port: 3001,
    portVariable: 'AUTH_PORT',
    dockerfile: 'apps/auth-server/Dockerfile',
    config: 'apps/auth-server/src/config/auth-config.ts',
  },
  {
    app: 'resource-server',
    port: 3002,
    portVariable: 'RESOURCE_PORT',
    dockerfile: 'apps/resource-server/Dockerfile',
    config: 'apps/resource-server/src/config/resource-config.ts',
  },
  { app: 'gateway', port: 3000, portVariable: 'PORT', dockerfile: 'apps/gateway/Dockerfile', config: 'apps/gateway/src/config.ts' },
];

export const MIGRATE_DOCKERFILE = 'tools/containers/migrate.Dockerfile';
