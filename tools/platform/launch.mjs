// `npm start` on free loopback ports, as a child process: what the load run and the embedded
// memory check start (the bench starts each service itself, to measure its own pid; the
// platform e2e suites have a TypeScript twin in apps/platform-e2e/src/support/platform-process.ts).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './fresh-databases.mjs';

/**
 * Starts tools/platform/start.mjs with `env` on top of the caller's environment and free ports
 * for the gateway and both services, and resolves once it prints "The platform is up".
 * `onOutput(chunk)` sees everything the launcher prints. The caller stops it with stop().
 */
export async function launchPlatform(root, { env = {}, build = true, timeoutMs = 300_000, onOutput } = {}) {
  const [port, authPort, resourcePort] = await Promise.all([freePort(), freePort(), freePort()]);
  const origin = `http://127.0.0.1:${port}`;
  const launcher = spawn(process.execPath, [join(root, 'tools/platform/start.mjs'), ...(build ? [] : ['--no-build'])], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), AUTH_PORT: String(authPort), RESOURCE_PORT: String(resourcePort), PUBLIC_BASE_URL: origin, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk) => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
    onOutput?.(chunk);
  };
  launcher.stdout.on('data', collect);
  launcher.stderr.on('data', collect);
  const stop = async (killAfterMs = 20_000) => {
    if (launcher.exitCode !== null || launcher.signalCode !== null) return;
    const exited = new Promise((resolve) => launcher.once('exit', resolve));
    launcher.kill('SIGTERM');
    const timer = setTimeout(() => launcher.kill('SIGKILL'), killAfterMs);
    await exited;
    clearTimeout(timer);
  };
  await new Promise((resolve, reject) => {
    const fail = (error) => {
      clearTimeout(timer);
      launcher.kill('SIGTERM');
      reject(new Error(`${error.message}\n${output.slice(-3000)}`));
    };
    const timer = setTimeout(() => fail(new Error(`the platform did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    const onData = () => {
      if (!output.includes('The platform is up')) return;
      clearTimeout(timer);
      launcher.stdout.off('data', onData);
      launcher.off('exit', onExit);
      resolve();
    };
    const onExit = (code, signal) => fail(new Error(`the launcher exited during start-up (${signal ?? `code ${code}`})`));
    launcher.stdout.on('data', onData);
    launcher.once('exit', onExit);
  });
  return { launcher, origin, output: () => output, stop };
}
