import type { ServiceName } from '@platform/route-table';

export interface GatewayConfig {
  host: string;
  port: number;
  upstreams: Record<ServiceName, string>;
  trustProxy: boolean;
  logLevel: string;
}

function origin(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name}: not a URL: ${value}`);
  }
  if (!/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search) {
    throw new Error(`${name}: expected an http(s) origin without path, got ${value}`);
  }
  return url.origin;
}

/** Every variable the gateway reads. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const port = Number(env['PORT'] ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT: not a port: ${env['PORT']}`);
  return {
    host: env['HOST'] || '127.0.0.1',
    port,
    upstreams: {
      'auth-server': origin('AUTH_SERVER_URL', env['AUTH_SERVER_URL'] || 'http://127.0.0.1:3001'),
      'resource-server': origin('RESOURCE_SERVER_URL', env['RESOURCE_SERVER_URL'] || 'http://127.0.0.1:3002'),
    },
    trustProxy: env['GATEWAY_TRUST_PROXY'] === 'true',
    logLevel: env['LOG_LEVEL'] || 'info',
  };
}
