// What the swarm stage concludes from the load tool's ledger (client/load.mjs), the database and
// the JWKS it watched. Pure functions: tools/swarm/src/ledger.spec.ts holds them to their word.
import { answeredAsExpected } from './client/actions.mjs';

/**
 * @typedef {{ i: number, worker: number, action: string, method: string, path: string, status: number,
 *   started: number, ended: number, address: string, error?: string, slug?: string, id?: string,
 *   sent?: Record<string, unknown>, kid?: string }} Entry
 * @typedef {{ id: string, slug: string, title: string, body: string, author_name: string }} PostRow
 * @typedef {{ at: number, address: string, status: number, kids: string[] | null }} JwksObservation
 */

/**
 * @param {string} text JSON lines
 * @returns {Entry[]}
 */
export function parseLedger(text) {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/**
 * Requests not answered as their action must be (status 0: no answer).
 * @param {Entry[]} entries
 */
export function failuresOf(entries) {
  return entries.filter((entry) => !answeredAsExpected(entry));
}

/**
 * Failures split by whether the request was in flight while the tasks were killed (sent before
 * the kill ended, not answered before it started) or sent once they were gone (lost beyond those
 * in flight: the platform should have sent it elsewhere).
 * @param {Entry[]} failures
 * @param {{ start: number, end: number }} kill Date.now() before the first `docker kill`, after the last
 */
export function splitByKill(failures, kill) {
  const inFlight = failures.filter((entry) => entry.started <= kill.end && entry.ended >= kill.start);
  const beyond = failures.filter((entry) => !inFlight.includes(entry));
  return { inFlight, beyond };
}

/**
 * The ledger's writes against the rows the database holds for this run:
 * - every write answered 201 exists, with the id answered and exactly the fields sent;
 * - nothing exists for a write answered with an error, nor for a slug the ledger never sent;
 * - a write without an answer (in flight on a killed task) may exist or not: counted as in doubt,
 *   and if it exists it must hold exactly what was sent (never half-written).
 * @param {Entry[]} entries
 * @param {PostRow[]} rows
 */
export function compareWrites(entries, rows) {
  const writes = entries.filter((entry) => entry.action === 'write' && entry.slug);
  const rowBySlug = new Map(rows.map((row) => [row.slug, row]));
  const sentSlugs = new Set(writes.map((entry) => entry.slug));
  /** @type {string[]} */
  const problems = [];
  let answeredCreated = 0;
  let inDoubt = 0;
  let inDoubtWritten = 0;
  for (const write of writes) {
    const row = rowBySlug.get(/** @type {string} */ (write.slug));
    if (write.status === 201) {
      answeredCreated++;
      if (!row) problems.push(`${write.slug}: answered 201, not in the database`);
      else if (row.id !== write.id) problems.push(`${write.slug}: answered id ${write.id}, the database has ${row.id}`);
    } else if (write.status === 0) {
      inDoubt++;
      if (row) inDoubtWritten++;
    } else if (row) {
      problems.push(`${write.slug}: answered ${write.status}, yet in the database`);
    }
    if (row && write.sent) {
      for (const field of ['title', 'slug', 'body', 'author_name']) {
        if (row[/** @type {keyof PostRow} */ (field)] !== write.sent[field]) problems.push(`${write.slug}: ${field} is ${JSON.stringify(row[/** @type {keyof PostRow} */ (field)])}, sent ${JSON.stringify(write.sent[field])}`);
      }
    }
  }
  for (const row of rows) if (!sentSlugs.has(row.slug)) problems.push(`${row.slug}: in the database, never sent`);
  return { sent: writes.length, answeredCreated, rows: rows.length, inDoubt, inDoubtWritten, problems };
}

/**
 * The ID tokens answered during a rotation (their kid and when they arrived) against each task's
 * JWKS as watched: an ID token whose kid a task's JWKS lacked at any time after the token was
 * issued is a violation (a client that fetched the JWKS from that task could not verify it).
 * @param {Entry[]} entries
 * @param {JwksObservation[]} observations
 */
export function rotationViolations(entries, observations) {
  const idTokens = entries.filter((entry) => entry.kid && (entry.action === 'token:code' || entry.action === 'token:refresh'));
  const answered = observations.filter((observation) => observation.status === 200 && observation.kids);
  /** @type {{ kid: string, at: number, address: string, seenAt: number, kids: string[] }[]} */
  const violations = [];
  for (const token of idTokens) {
    const lacking = answered.find((observation) => observation.at >= token.ended && !observation.kids?.includes(/** @type {string} */ (token.kid)));
    if (lacking) violations.push({ kid: /** @type {string} */ (token.kid), at: token.ended, address: lacking.address, seenAt: lacking.at, kids: lacking.kids ?? [] });
  }
  /** @type {Record<string, number>} */
  const byKid = {};
  for (const token of idTokens) byKid[/** @type {string} */ (token.kid)] = (byKid[/** @type {string} */ (token.kid)] ?? 0) + 1;
  return { idTokens: idTokens.length, byKid, observations: answered.length, tasksWatched: new Set(answered.map((o) => o.address)).size, violations };
}

/**
 * When a new key reached each task's JWKS, and when it first signed an ID token: per task (by
 * address), when it first answered, when its JWKS first held the key (null: never), when it last
 * answered; and the first ID token with the key. A task that answered before `since` (the deploy)
 * is one of the old ones, whose configuration never held the key.
 * @param {Entry[]} entries
 * @param {JwksObservation[]} observations
 * @param {string} kid
 * @param {number} since
 */
export function keyTimeline(entries, observations, kid, since) {
  /** @type {Map<string, { address: string, old: boolean, firstSeen: number, withKey: number | null, lastSeen: number }>} */
  const tasks = new Map();
  for (const observation of [...observations].sort((a, b) => a.at - b.at)) {
    if (observation.status !== 200 || !observation.kids) continue;
    const task = tasks.get(observation.address) ?? { address: observation.address, old: observation.at < since, firstSeen: observation.at, withKey: null, lastSeen: observation.at };
    task.lastSeen = observation.at;
    if (task.withKey === null && observation.kids.includes(kid)) task.withKey = observation.at;
    tasks.set(observation.address, task);
  }
  const signed = entries.filter((entry) => entry.kid === kid).map((entry) => entry.ended);
  return { tasks: [...tasks.values()], firstToken: signed.length ? Math.min(...signed) : null };
}

/**
 * Counts of the ledger by action and status, and the addresses (gateway tasks) that answered.
 * @param {Entry[]} entries
 */
export function summarize(entries) {
  /** @type {Record<string, Record<string, number>>} */
  const byAction = {};
  /** @type {Record<string, number>} */
  const byAddress = {};
  for (const entry of entries) {
    const counts = (byAction[entry.action] ??= {});
    counts[String(entry.status)] = (counts[String(entry.status)] ?? 0) + 1;
    if (entry.address) byAddress[entry.address] = (byAddress[entry.address] ?? 0) + 1;
  }
  const first = Math.min(...entries.map((entry) => entry.started));
  const last = Math.max(...entries.map((entry) => entry.ended));
  return { requests: entries.length, seconds: entries.length ? (last - first) / 1000 : 0, byAction, byAddress };
}
