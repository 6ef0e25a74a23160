import { z } from 'zod';

/**
 * The browser origins that may call /mcp: the public origin, and those MCP_ALLOWED_ORIGINS
 * names (a browser-based MCP client served from elsewhere: a web agent, the MCP Inspector's
 * page). MCP Streamable HTTP, security: "Servers MUST validate the Origin header on all incoming
 * connections to prevent DNS rebinding attacks": a page on any other origin (a rebound DNS name
 * included) is refused, and gets no CORS grant. Requests without an Origin header (every
 * non-browser client) are not concerned.
 */
export class McpBrowserOrigins {
  private readonly allowed: ReadonlySet<string>;

  constructor(publicBaseUrl: string, configured: readonly string[] = []) {
    this.allowed = new Set([new URL(publicBaseUrl).origin, ...configured]);
  }

  /** Exact comparison: browsers send the serialized origin, the form URL.origin gives. */
  allows(origin: string): boolean {
    return this.allowed.has(origin);
  }

  get origins(): readonly string[] {
    return [...this.allowed];
  }
}

/**
 * MCP_ALLOWED_ORIGINS: comma-separated origins (`https://agent.example.com,http://localhost:6274`),
 * each an http(s) scheme, host and optional port, nothing else, normalized as URL.origin. Empty:
 * the public origin only. `*` and `null` are refused: either would let any page (a DNS-rebinding
 * one included) drive the endpoint from a user's browser.
 */
export const mcpAllowedOriginsEnv = z
  .string()
  .default('')
  .transform((value, context) => {
    const origins: string[] = [];
    for (const entry of value.split(',').map((item) => item.trim()).filter((item) => item !== '')) {
      const origin = originOf(entry);
      if (origin === undefined) {
        context.addIssue({ code: 'custom', message: `"${entry.slice(0, 100)}" is not an origin: write scheme://host[:port], http or https, nothing after it` });
        return z.NEVER;
      }
      if (!origins.includes(origin)) origins.push(origin);
    }
    return origins;
  });

function originOf(entry: string): string | undefined {
  if (!URL.canParse(entry) || /[?#]/.test(entry)) return undefined;
  const url = new URL(entry);
  const http = url.protocol === 'http:' || url.protocol === 'https:';
  return http && url.pathname === '/' && url.username === '' && url.password === '' ? url.origin : undefined;
}
