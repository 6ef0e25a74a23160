// Fresh, uniquely named databases on a PostgreSQL server (the one of DATABASE_URL), one per
// service, for a run that must not touch anyone else's data (bench, load); drop() removes them.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export { freePort } from './free-port.mjs';

/** `{ urls: { auth, resource }, names, drop }` for databases named `<prefix>_<service>_<suffix>`. */
export async function createFreshDatabases(serverUrl, prefix, suffix = randomBytes(4).toString('hex')) {
  const names = { auth: `${prefix}_auth_${suffix}`, resource: `${prefix}_resource_${suffix}` };
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const urls = {};
  try {
    for (const [service, name] of Object.entries(names)) {
      await admin.query(`CREATE DATABASE "${name}"`);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      urls[service] = url.toString();
    }
  } finally {
    await admin.end();
  }
  return {
    urls,
    names,
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        for (const name of Object.values(names)) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
