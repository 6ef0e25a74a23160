#!/usr/bin/env node
// The physical floor of the resource server's anonymous course list on this stack: a bare Fastify
// route that runs the same SQL as `GET /api/v1/courses?limit=5` (apps/resource-server/src/courses/
// courses.repository.ts, the published courses of the default school) over a pg pool of the
// service's size and serializes the same JSON. No Nest, no guard, no validation library, no logs,
// no metrics: what is left is HTTP, one statement and JSON. tools/bench/floor-check.mjs proves
// the two bodies are byte-for-byte the same against a seeded database.
//
// Environment: DATABASE_URL (the resource database), PORT (0: ephemeral), HOST (default
// 127.0.0.1), DEFAULT_SCHOOL_ID (default demo-school, as the service), DATABASE_POOL_SIZE
// (default 10, as the service). Prints {"event":"listening","url":...} on stdout when ready;
// ends on SIGTERM/SIGINT (or when the parent that forked it goes away).
import Fastify from 'fastify';
import pg from 'pg';

// The statement of CoursesRepository for the public view without filters or cursor: the columns
// under their JSON names, in the JSON's order, RFC 3339 UTC dates formatted by PostgreSQL.
const UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const SQL =
  `SELECT id, title, slug, summary, description, level, price_cents, currency, lecturer_id, published, ` +
  `to_char(published_at, ${UTC}) AS published_at, to_char(created_at, ${UTC}) AS created_at, ` +
  `to_char(updated_at, ${UTC}) AS updated_at FROM courses WHERE school_id = $1 AND published ORDER BY id LIMIT $2`;

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('floor-server: DATABASE_URL is required');
  process.exit(1);
}
const schoolId = process.env.DEFAULT_SCHOOL_ID || 'demo-school';
const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE || 10), connectionTimeoutMillis: 5_000 });

const app = Fastify({ logger: false });

app.get('/api/v1/courses', async (request, reply) => {
  const raw = request.query.limit;
  const limit = raw === undefined ? DEFAULT_PAGE_SIZE : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    return reply.code(400).send({ error: 'invalid_request', error_description: `limit: 1-${MAX_PAGE_SIZE}` });
  }
  // One row more than the page: it only says whether a next page exists.
  const { rows } = await pool.query(SQL, [schoolId, limit + 1]);
  const data = rows.length > limit ? rows.slice(0, limit) : rows;
  const nextCursor = rows.length > limit ? Buffer.from(JSON.stringify([data[data.length - 1].id]), 'utf8').toString('base64url') : null;
  reply.header('content-type', 'application/json; charset=utf-8');
  return JSON.stringify({ data, next_cursor: nextCursor });
});

let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  await app.close().catch(() => undefined);
  await pool.end().catch(() => undefined);
  process.exit(0);
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
process.once('disconnect', shutdown);

const address = await app.listen({ host: process.env.HOST || '127.0.0.1', port: Number(process.env.PORT || 0) });
const { port } = new URL(address);
console.log(JSON.stringify({ event: 'listening', url: `http://127.0.0.1:${port}` }));
