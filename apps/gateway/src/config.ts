import { LOG_LEVELS, type LogLevel } from '@platform/observability';
import { compile } from '@fastify/proxy-addr';
import { DEFAULT_UPLOAD_MAX_BYTES, SERVICE_BODY_LIMITS, type ServiceName } from '@platform/route-table';

export interface GatewayConfig {
  host: string;
  port: number;
  upstreams: Record<ServiceName, string>;
  /**
   * Who may tell the gateway the client's address in X-Forwarded-For (GATEWAY_TRUST_PROXY):
   * false (the gateway is the public edge: the peer is the client), true (exactly one proxy you
   * run in front: the last address it appends), or the proxies' addresses / CIDR ranges.
   */
  trustProxy: boolean | string[];
  /** The largest request body each service takes; the gateway answers 413 to bigger ones. */
  bodyLimits: Record<ServiceName, number>;
  /** The largest upload (UPLOAD_PATH only). */
  uploadMaxBytes: number;
  logLevel: LogLevel;
  /** How long SIGTERM may take before the gateway exits 1 anyway. */
  shutdownTimeoutMs: number;
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

function logLevel(value: string | undefined): LogLevel {
  if (!value) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(value)) throw new Error(`LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, got ${value}`);
  return value as LogLevel;
}

function milliseconds(name: string, value: string | undefined, fallback: number): number {
  if (!value) return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1_000 || ms > 300_000) throw new Error(`${name}: expected milliseconds between 1000 and 300000, got ${value}`);
  return ms;
}

/** The resource server's upload limit (same variable and default as the resource server). */
function uploadMaxBytes(value: string | undefined): number {
  if (!value) return DEFAULT_UPLOAD_MAX_BYTES;
  const bytes = Number(value);
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > 100 * 1024 * 1024) throw new Error(`UPLOAD_MAX_BYTES: expected bytes between 1 and 104857600, got ${value}`);
  return bytes;
}

function trustProxy(value: string | undefined): boolean | string[] {
  if (!value || value === 'false') return false;
  if (value === 'true') return true;
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  // Checked with the library Fastify resolves X-Forwarded-For with (as TRUSTED_PROXIES in the
  // services; not imported from @platform/rate-limits, which would bring Redis into the gateway).
  for (const entry of entries) {
    try {
      compile(entry);
    } catch {
      throw new Error(`GATEWAY_TRUST_PROXY: expected true, false, or proxy IP addresses / CIDR ranges; not one: ${entry}`);
    }
  }
  return entries;
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
    trustProxy: trustProxy(env['GATEWAY_TRUST_PROXY']),
    bodyLimits: { ...SERVICE_BODY_LIMITS },
    uploadMaxBytes: uploadMaxBytes(env['UPLOAD_MAX_BYTES']),
    logLevel: logLevel(env['LOG_LEVEL']),
    shutdownTimeoutMs: milliseconds('SHUTDOWN_TIMEOUT_MS', env['SHUTDOWN_TIMEOUT_MS'], 8_000),
  };
}
