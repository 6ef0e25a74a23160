import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  /** The test certificate authority (PEM): trusted by the test configuration only. */
  caCert: string;
  caFile: string;
  /** A server certificate for `names`, signed by the test CA. */
  serverCert: string;
  serverKey: string;
  cleanup(): void;
}

/**
 * A throw-away certificate authority and one server certificate for the given host names,
 * made with the openssl CLI (Debian's). Nothing is added to any system trust store.
 */
export function createTestCertificates(names: readonly string[]): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-ca-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2',
    '-subj', '/CN=CIMD test CA', '-keyout', file('ca.key'), '-out', file('ca.crt'),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${names[0]}`,
    '-keyout', file('server.key'), '-out', file('server.csr'));
  writeFileSync(
    file('server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}`,
    ].join('\n'),
  );
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'),
    '-CAcreateserial', '-days', '2', '-extfile', file('server.ext'), '-out', file('server.crt'));
  return {
    caCert: readFileSync(file('ca.crt'), 'utf8'),
    caFile: file('ca.crt'),
    serverCert: readFileSync(file('server.crt'), 'utf8'),
    serverKey: readFileSync(file('server.key'), 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
