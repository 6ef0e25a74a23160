import { createTestTls } from '../../../../tools/test-support/test-tls';
import { startPlatform } from './platform-process';

declare global {
  var __platform: { stop(): Promise<void> } | undefined;
}

/** Where the CIMD suite finds the test CA and the certificate of its local https server. */
export const CIMD_TLS_DIR_VARIABLE = 'E2E_CIMD_TLS_DIR';

/**
 * Starts the platform once for every suite, unless E2E_BASE_URL names a running one.
 *
 * The environment set here is read by the platform (the launcher passes it to the services)
 * and by the suites (jest workers inherit the environment of this process):
 * - a test certificate authority, made before the platform starts: the auth server trusts it
 *   for client ID metadata documents (CIMD_EXTRA_CA_FILE) and may fetch them from loopback
 *   (CIMD_ALLOW_SPECIAL_USE_HOSTS); both are refused when NODE_ENV=production;
 * - a 5 s refresh-token reuse window (unless the caller sets one), so the suite that waits past
 *   it waits ~6 s, not ~31 s.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env['E2E_BASE_URL']) return;
  const tls = createTestTls(['127.0.0.1', 'localhost']);
  const testEnv = {
    REFRESH_REUSE_GRACE_SECONDS: process.env['REFRESH_REUSE_GRACE_SECONDS'] ?? '5',
    CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true',
    CIMD_EXTRA_CA_FILE: tls.caFile,
    [CIMD_TLS_DIR_VARIABLE]: tls.dir,
  };
  Object.assign(process.env, testEnv);
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  try {
    platform = await startPlatform(testEnv);
  } catch (error) {
    tls.cleanup();
    throw error;
  }
  globalThis.__platform = {
    async stop() {
      await platform.stop();
      tls.cleanup();
    },
  };
  process.env['E2E_BASE_URL'] = platform.baseUrl;
}
