// Secrets of the embedded mode, generated on first start and kept under .data/.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function loadOrCreateSecrets(file) {
  const secrets = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  if (!secrets.introspectionClientSecret) {
    secrets.introspectionClientSecret = randomBytes(32).toString('base64url');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  }
  return secrets;
}
