import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { baseUrl } from '../support/platform';

/**
 * The auth database of the platform under test, for the clients CLI, which staff run beside a
 * running platform: E2E_AUTH_DATABASE_URL when the caller names it; otherwise, with DATABASE_URL
 * (the global setup then made one database per service, e2e_auth_<suffix>), the e2e auth
 * database that holds a client just registered through the origin, which tells this run's
 * database from those of runs going on beside it. Undefined when there is none to open: the
 * embedded PostgreSQL serves the platform alone while it runs.
 */
export async function platformAuthDatabaseUrl(): Promise<string | undefined> {
  const named = process.env['E2E_AUTH_DATABASE_URL'];
  if (named) return named;
  const server = process.env['DATABASE_URL'];
  if (!server) return undefined;

  const registration = await fetch(`${baseUrl()}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: `e2e database marker ${randomBytes(6).toString('hex')}`, redirect_uris: ['http://127.0.0.1:8765/callback'] }),
  });
  if (registration.status !== 201) throw new Error(`registration answered ${registration.status}`);
  const { client_id: marker } = (await registration.json()) as { client_id: string };

  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  let names: string[];
  try {
    names = (await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'e2e\\_auth\\_%'`)).rows.map((row) => row.datname);
  } finally {
    await admin.end();
  }
  for (const name of names) {
    const url = new URL(server);
    url.pathname = `/${name}`;
    const candidate = new pg.Client({ connectionString: url.toString() });
    try {
      await candidate.connect();
      const { rowCount } = await candidate.query('SELECT 1 FROM clients WHERE id = $1', [marker]);
      if (rowCount === 1) return url.toString();
    } catch {
      // A database of another run, dropped meanwhile or not migrated yet: not ours.
    } finally {
      await candidate.end().catch(() => undefined);
    }
  }
  return undefined;
}
