// The person in the suite's authorization-code-grant scenario. The suite prints an authorization
// URL and waits for a browser to bring the answer to its loopback callback; this signs in as the
// demo account and approves on the platform's own pages with the project's form walker
// (tools/test-support/browser-like-agent.ts), then delivers the redirect to the callback.
//
//   node24 --experimental-transform-types tools/conformance/consent.mjs <authorization URL> <origin>
//
// Runs on Node 24 (the walker is TypeScript: Node 24 strips and transforms its types itself).
import { BrowserLikeAgent } from '../test-support/browser-like-agent.ts';

const DEMO = { email: 'demo@academy.test', password: 'demo-password' };

const [authorizationUrl, origin] = process.argv.slice(2);
if (!authorizationUrl || !origin) {
  console.error('usage: consent.mjs <authorization URL> <origin>');
  process.exit(2);
}

try {
  const agent = new BrowserLikeAgent(origin);
  const login = await agent.open(authorizationUrl);
  let callback = login;
  if (!login.location) {
    const consent = await agent.submit(login, { email: DEMO.email, password: DEMO.password });
    callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
  }
  if (!callback.location) throw new Error(`no redirect to the client after approval (HTTP ${callback.status})`);
  // The suite's callback server reads the code, state and iss from this request.
  const delivered = await fetch(callback.location, { redirect: 'manual' });
  await delivered.arrayBuffer();
  console.log(`consent: approved as ${DEMO.email}; the callback answered ${delivered.status}`);
} catch (error) {
  console.error(`${error instanceof Error ? error.message : error}`.replace(/\s+/g, ' ').slice(0, 400));
  process.exit(1);
}
