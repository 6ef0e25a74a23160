import { randomBytes } from 'node:crypto';
import { createTestTls, type TestTls } from '../../../../tools/test-support/test-tls';
import { startPlatform, type RunningPlatform } from '../support/platform-process';
import { WebhookReceiver } from './webhook-receiver';

// The recipe docs/events.md gives integrators (Node, node:crypto only).
// eslint-disable-next-line @nx/enforce-module-boundaries
export const { verifyWebhook } = require('../../../resource-server/src/webhooks/verify-webhook.example.cjs') as {
  verifyWebhook: (secret: string, headers: Record<string, unknown>, rawBody: string) => unknown;
};

export interface ApiResponse {
  status: number;
  body: Record<string, unknown>;
}

export interface WebhookPlatform {
  /** The platform's origin. */
  origin: string;
  /** The https endpoint on the loopback the platform delivers to. */
  receiver: WebhookReceiver;
  /** Calls `/api/v1${path}` on the platform with the bearer `token`, a JSON body if given. */
  api(path: string, token: string, init?: { method?: string; body?: unknown }): Promise<ApiResponse>;
  /** Stops the platform and the receiver, and gives E2E_BASE_URL back to the shared platform. */
  stop(): Promise<void>;
}

/**
 * A platform of a suite's own whose webhooks reach a TLS receiver on the loopback. Loopback
 * endpoints need the test-only WEBHOOK_ALLOW_SPECIAL_USE_HOSTS and the receiver's test CA
 * (WEBHOOK_EXTRA_CA_FILE), both refused in production: so the suite starts its own platform
 * with them (the launcher of `npm start`, as the global setup does), beside the shared one.
 * While it runs, E2E_BASE_URL names it: the OAuth helpers (support/oauth-client) talk to it.
 * `extraEnv` is added to the services' environment last.
 */
export async function startWebhookPlatform(extraEnv: NodeJS.ProcessEnv = {}): Promise<WebhookPlatform> {
  let tls: TestTls | undefined;
  let receiver: WebhookReceiver | undefined;
  let platform: RunningPlatform | undefined;
  const stop = async () => {
    await platform?.stop();
    await receiver?.stop();
    tls?.cleanup();
  };
  try {
    tls = createTestTls(['127.0.0.1']);
    receiver = await new WebhookReceiver(tls).start();
    platform = await startPlatform({
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_SPECIAL_USE_HOSTS: 'true',
      WEBHOOK_EXTRA_CA_FILE: tls.caFile,
      WEBHOOK_POLL_INTERVAL_MS: '200',
      ...extraEnv,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const origin = platform.baseUrl;
  const sharedBaseUrl = process.env['E2E_BASE_URL'];
  process.env['E2E_BASE_URL'] = origin;

  return {
    origin,
    receiver,
    async api(path, token, init = {}) {
      const response = await fetch(`${origin}/api/v1${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    },
    async stop() {
      if (sharedBaseUrl === undefined) delete process.env['E2E_BASE_URL'];
      else process.env['E2E_BASE_URL'] = sharedBaseUrl;
      await stop();
    },
  };
}

/** Polls until `condition` holds (the relay and the deliveries are asynchronous); fails after `deadlineMs`. */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
