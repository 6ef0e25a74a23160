// A client's web site for the bench: an https server on 127.0.0.1 with a certificate from a
// throw-away CA (made with the openssl CLI, as tools/test-support/test-tls.ts does for the test
// suites), serving client ID metadata documents. Only the bench's auth server trusts the CA
// (CIMD_EXTRA_CA_FILE) and may fetch from loopback (CIMD_ALLOW_SPECIAL_USE_HOSTS); both are
// refused when NODE_ENV=production, and the bench runs the services in development.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startDocumentSite() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-site-'));
  const file = (name) => join(dir, name);
  const openssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-days', '2', '-subj', '/CN=Bench CA (bench only)', '-keyout', file('ca.key'), '-out', file('ca.crt'),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-subj', '/CN=127.0.0.1', '-keyout', file('server.key'), '-out', file('server.csr'));
  writeFileSync(file('server.ext'), 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '2',
    '-extfile', file('server.ext'), '-out', file('server.crt'));

  const routes = new Map();
  const server = createServer({ cert: readFileSync(file('server.crt')), key: readFileSync(file('server.key')) }, (request, response) => {
    const body = routes.get(request.url);
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=86400' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${server.address().port}`;
  return {
    caFile: file('ca.crt'),
    /** Serves `document(url)` as JSON at `path`; returns the URL. */
    json(path, document) {
      const url = `${origin}${path}`;
      routes.set(path, JSON.stringify(typeof document === 'function' ? document(url) : document));
      return url;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
