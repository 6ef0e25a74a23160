import { startPlatform } from './platform-process';

declare global {
  var __platform: { stop(): Promise<void> } | undefined;
}

/** Starts the platform once for every suite, unless E2E_BASE_URL names a running one. */
export default async function globalSetup(): Promise<void> {
  if (process.env['E2E_BASE_URL']) return;
  const platform = await startPlatform();
  globalThis.__platform = platform;
  // Read by the suites: workers inherit the environment of this process.
  process.env['E2E_BASE_URL'] = platform.baseUrl;
}
