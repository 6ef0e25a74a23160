/**
 * The curl walkthrough of /auth.md, run as written against the platform: every ```bash block of
 * the served document, in order, in one bash. The only stand-in is the user: when the script prints
 * the authorization URL, this test signs in and approves like a browser would, and the browser's
 * redirect reaches the walkthrough's own loopback listener. The listener's port is swapped for a
 * free one so that parallel suites cannot collide on 8765.
 */
import { spawn } from 'node:child_process';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO } from '../support/oauth-client';
import { baseUrl } from '../support/platform';
import { freePort } from '../../../../tools/test-support/free-port';

jest.setTimeout(120_000);

const PROMPT = 'Open this URL in your browser: ';

/** The browser's part: sign in, approve, and follow the redirect to the loopback listener. */
async function actAsTheUser(authorizationUrl: string): Promise<void> {
  const agent = new BrowserLikeAgent(baseUrl());
  const login = await agent.open(authorizationUrl);
  const consent = await agent.submit(login, { email: DEMO.email, password: DEMO.password });
  const callback = await agent.submit(consent, {}, 'Approve');
  if (!callback.location) throw new Error(`no redirect after consent: ${callback.status}`);
  // The listener started right after the prompt; give node a moment to bind if it has not yet.
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await fetch(callback.location);
      expect(await answer.text()).toBe('You can close this window.');
      return;
    } catch (error) {
      if (attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

it('/auth.md: the bash blocks, run in order, register, authorize, exchange, call, refresh and revoke', async () => {
  const guide = await (await fetch(`${baseUrl()}/auth.md`)).text();
  const blocks = [...guide.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  expect(blocks.length).toBeGreaterThanOrEqual(8);
  const port = String(await freePort());
  const script = blocks.join('\n').replaceAll('8765', port);

  const bash = spawn('bash', ['-e', '-o', 'pipefail'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let user: Promise<void> | undefined;
  bash.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const line = stdout.split('\n').find((candidate) => candidate.startsWith(PROMPT));
    if (line && !user) user = actAsTheUser(line.slice(PROMPT.length));
  });
  bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  bash.stdin.end(script);
  const status = await new Promise<number | null>((resolve) => bash.on('close', resolve));
  await user;

  expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
  const lines = stdout.trim().split('\n');
  // The last two commands: the revocation of the current refresh token (200), then that token refused.
  expect(lines.slice(-2)).toEqual(['200', '{"error":"invalid_grant","error_description":"The refresh token is invalid, expired or revoked"}']);
  // Step 6 called the API and userinfo with the access token of step 5.
  expect(stdout).toContain('"school_id":"demo-school"');
});
