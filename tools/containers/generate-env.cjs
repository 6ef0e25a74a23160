#!/usr/bin/env node
// Writes an env file for docker-compose.yml from .env.example, with fresh secrets filled in:
//
//   node tools/containers/generate-env.cjs                 .env for production (https PUBLIC_BASE_URL to edit)
//   node tools/containers/generate-env.cjs --local         .env for a local http trial on 127.0.0.1:3000
//   node tools/containers/generate-env.cjs --out FILE [--force] [--set NAME=VALUE ...]
//
// Refuses to overwrite an existing file without --force. Only Node built-ins: runs before
// `npm install`. The secrets: POSTGRES_PASSWORD and INTROSPECTION_CLIENT_SECRET are random hex
// (safe inside a URL), OIDC_SIGNING_KEYS one RS256 private JWK (kid = its RFC 7638 thumbprint).
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');

/** A private RSA JWK for RS256 ID tokens, as the auth-server expects it (kid, alg, use). */
function generateSigningJwk() {
  // Exported through a key object of its own (made from the PKCS #8 form), never the one the
  // generation job returned: that one shares the job's mutex, and Node 20 deadlocked here in CI
  // (the JWK export holds the mutex and allocates; the GC destroys the job, which waits for it).
  // The auth server's generatePrivateJwk (apps/auth-server/src/keys) does the same with jose's
  // thumbprint; this copy uses node: built-ins only, so the compose quick start needs no npm install.
  const { privateKey } = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  const jwk = crypto.createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  // RFC 7638: the SHA-256 of the required members in lexicographic order, base64url.
  const thumbprint = crypto
    .createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
    .digest('base64url');
  return { ...jwk, kid: thumbprint, alg: 'RS256', use: 'sig' };
}

/** Fresh values for every secret of .env.example. */
function generateSecrets() {
  return {
    POSTGRES_PASSWORD: crypto.randomBytes(24).toString('hex'),
    INTROSPECTION_CLIENT_SECRET: crypto.randomBytes(32).toString('hex'),
    OIDC_SIGNING_KEYS: JSON.stringify([generateSigningJwk()]),
  };
}

/** Values for a local http trial: the auth server refuses an http issuer when NODE_ENV=production. */
function localOverrides(port = 3000) {
  return {
    NODE_ENV: 'development',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    GATEWAY_PUBLISH_PORT: String(port),
    SEED_DEMO_DATA: 'true',
  };
}

/**
 * Names and values of the variables an env file assigns (comments and blank lines skipped).
 * @param {string} text
 * @returns {Record<string, string>}
 */
function parseEnvFile(text) {
  /** @type {Record<string, string>} */
  const values = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2].trim();
    if (value.length >= 2 && (value[0] === "'" || value[0] === '"') && value.endsWith(value[0])) value = value.slice(1, -1);
    values[match[1]] = value;
  }
  return values;
}

/**
 * The template with the given values assigned; every line keeps its place and comments.
 * Values are single-quoted: both Compose v2 and docker-compose 1.29 then take them literally
 * (JSON keeps its double quotes, nothing is interpolated).
 * @param {string} template
 * @param {Record<string, string>} values
 * @returns {string}
 */
function renderEnvFile(template, values) {
  const seen = new Set();
  const lines = template.split(/\r?\n/).map((line) => {
    const match = /^(\s*)([A-Za-z_][A-Za-z0-9_]*)=/.exec(line);
    if (!match || !(match[2] in values)) return line;
    seen.add(match[2]);
    return `${match[1]}${match[2]}=${quote(match[2], values[match[2]])}`;
  });
  const extra = Object.keys(values).filter((name) => !seen.has(name));
  if (extra.length > 0) throw new Error(`not in .env.example: ${extra.join(', ')}`);
  return lines.join('\n');
}

/**
 * @param {string} name
 * @param {string} value
 */
function quote(name, value) {
  const text = String(value);
  if (/['\r\n]/.test(text)) throw new Error(`${name}: single quotes and newlines cannot be written to an env file`);
  return /^[A-Za-z0-9_.:/@+-]*$/.test(text) ? text : `'${text}'`;
}

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {{ out: string, force: boolean, local: boolean, set: Record<string, string> }} */
  const options = { out: path.join(root, '.env'), force: false, local: false, set: {} };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--force') options.force = true;
    else if (arg === '--local') options.local = true;
    else if (arg === '--out' && argv[i + 1]) options.out = path.resolve(argv[++i] ?? '');
    else if (arg === '--set' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i + 1] ?? '')) {
      const [name = '', ...rest] = argv[++i].split('=');
      options.set[name] = rest.join('=');
    } else {
      throw new Error('usage: generate-env.cjs [--local] [--out FILE] [--force] [--set NAME=VALUE ...]');
    }
  }
  return options;
}

/** @param {string[]} argv */
function main(argv) {
  const options = parseArgs(argv);
  if (fs.existsSync(options.out) && !options.force) {
    throw new Error(`${options.out} exists: keep it, or pass --force to replace it (its secrets are lost)`);
  }
  const template = fs.readFileSync(path.join(root, '.env.example'), 'utf8');
  const values = { ...generateSecrets(), ...(options.local ? localOverrides() : {}), ...options.set };
  fs.writeFileSync(options.out, renderEnvFile(template, values), { mode: 0o600 });
  fs.chmodSync(options.out, 0o600);
  console.log(`wrote ${path.relative(process.cwd(), options.out) || options.out} (mode 600)`);
}

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`generate-env: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}

module.exports = { generateSecrets, generateSigningJwk, localOverrides, parseEnvFile, renderEnvFile };
