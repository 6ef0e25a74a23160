/**
 * docs/dpop.md's runnable example, run as an integrator would run it (`node dpop-example.mjs
 * <origin>`) against the platform through the origin: the person at the browser is a
 * BrowserLikeAgent that opens the URL it prints, signs in, approves and follows the redirect to
 * the script's loopback callback. The script then exchanges the code with a proof, calls the API
 * and /mcp, refreshes and revokes; the page's example cannot drift from what works.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO } from '../support/oauth-client';
import { baseUrl } from '../support/platform';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '../../../..');
// Inside the repository (tmp/ is git-ignored), so that the script's `import 'oauth4webapi'` resolves.
const DIR = join(ROOT, 'tmp/dpop-doc-example');

function exampleScript(): string {
  const page = readFileSync(join(ROOT, 'docs/dpop.md'), 'utf8');
  const block = /```js\n\/\/ dpop-example\.mjs\n([\s\S]*?)```/.exec(page)?.[1];
  if (!block) throw new Error('docs/dpop.md has no ```js block starting with // dpop-example.mjs');
  return block;
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

it('docs/dpop.md: the oauth4webapi example runs through the origin, from registration to revocation', async () => {
  mkdirSync(DIR, { recursive: true });
  const script = join(DIR, 'dpop-example.mjs');
  writeFileSync(script, exampleScript());
  const child = spawn(process.execPath, [script, baseUrl()], { cwd: DIR, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const authorizationUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /Open this URL in your browser:\n(\S+)/.exec(stdout)?.[1];
      if (url) resolve(url);
    });
    void exited.then((code) => reject(new Error(`the example exited (${code}) before printing its URL: ${stderr}`)));
  });

  const agent = new BrowserLikeAgent(baseUrl());
  const login = await agent.open(authorizationUrl);
  const consent = await agent.submit(login, { email: DEMO.email, password: DEMO.password });
  const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
  expect(callback.location).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?/);
  // The browser follows the redirect to the script's loopback server.
  expect((await fetch(callback.location as string)).status).toBe(200);

  // Its exit code, with what it wrote on stderr when it failed (a warning alone is not a failure).
  const code = await exited;
  expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout).toContain('token_type: dpop');
  expect(stdout).toMatch(/students: \[.+\]/);
  expect(stdout).toMatch(/list_students: [1-3] students/);
  expect(stdout.trimEnd().endsWith('revoked')).toBe(true);
});
