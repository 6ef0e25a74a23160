import { Inject, Injectable } from '@nestjs/common';
import type { SecurityEvent } from '@platform/contracts';
import type { Pool } from 'pg';
import { batchWhileInFlight } from '../database/batch-while-in-flight';
import { PG_POOL, query, statement } from '../database/pg-pool';
import type { Prisma } from '../generated/prisma/client';

/**
 * PostgreSQL's clock in the columns' terms: `timestamp(3)` holding UTC (as Prisma writes them),
 * whatever the session's TimeZone. Every replica's relay compares against this one clock.
 * Truncated to the millisecond: PostgreSQL rounds a value to the column's precision, so an event
 * appended in the same millisecond as a claim would otherwise be stored up to 0.5 ms ahead of
 * the claim's clock and wait for the next pass.
 */
export const NOW = `date_trunc('milliseconds', now() AT TIME ZONE 'UTC')`;

/** Events appended at once: the calls that arrive while a batch is in the database (batch-while-in-flight.ts). */
const MAX_APPEND_BATCH = 200;

const APPEND = statement(
  'append_security_events',
  `INSERT INTO security_event_outbox (id, payload, created_at, next_attempt_at)
   SELECT id, payload, ${NOW}, ${NOW} FROM unnest($1::text[], $2::text[]) AS event(id, payload)`,
);

/**
 * Takes up to $1 unsent events that are due, each for one relay: their attempt counted and their
 * next attempt moved $2 seconds ahead (the lease), in one statement. A relay that dies before it
 * says how the sending went leaves them due again when the lease ends.
 */
const CLAIM = statement(
  'claim_security_events',
  `UPDATE security_event_outbox
      SET attempts = attempts + 1, next_attempt_at = ${NOW} + make_interval(secs => $2)
    WHERE id IN (SELECT id FROM security_event_outbox
                  WHERE sent_at IS NULL AND next_attempt_at <= ${NOW}
                  ORDER BY next_attempt_at, id
                  LIMIT $1
                    FOR UPDATE SKIP LOCKED)
   RETURNING id, payload, attempts`,
);

const MARK_SENT = statement(
  'mark_security_events_sent',
  `UPDATE security_event_outbox SET sent_at = ${NOW}, last_error = NULL WHERE id = ANY($1::text[]) AND sent_at IS NULL`,
);

/**
 * Each event's next attempt, if it is still the attempt this relay claimed (same count, unsent): a
 * relay whose lease ran out while another took the events again changes nothing of theirs.
 */
const RETRY_LATER = statement(
  'retry_security_events_later',
  `UPDATE security_event_outbox AS outbox
      SET next_attempt_at = ${NOW} + make_interval(secs => retry.delay), last_error = $4
     FROM unnest($1::text[], $2::int[], $3::float8[]) AS retry(id, attempts, delay)
    WHERE outbox.id = retry.id AND outbox.attempts = retry.attempts AND outbox.sent_at IS NULL`,
);

const DROP = statement('drop_security_events', `DELETE FROM security_event_outbox WHERE id = ANY($1::text[]) AND sent_at IS NULL`);

/** An event a relay took: the JSON text it sends as is, and which attempt this is (1 for the first). */
export interface ClaimedSecurityEvent {
  id: string;
  payload: string;
  attempts: number;
}

/** The outbox row of an event: its id and the JSON the ingest takes (serialized once, sent as is). */
function rowOf(event: SecurityEvent): { id: string; payload: string } {
  return { id: event.id, payload: JSON.stringify(event) };
}

/**
 * Appends events to the outbox inside a transaction of the change they report (Prisma's
 * interactive transaction): both commit or neither does.
 */
export async function appendSecurityEventsIn(tx: Pick<Prisma.TransactionClient, '$executeRawUnsafe'>, events: readonly SecurityEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(rowOf);
  await tx.$executeRawUnsafe(
    APPEND.text,
    rows.map((row) => row.id),
    rows.map((row) => row.payload),
  );
}

/**
 * The `security_event_outbox` table: events waiting for the relay (security-events-relay.ts), in
 * SQL of its own over the process's pg pool. Several replicas share it: each claim takes its rows
 * with FOR UPDATE SKIP LOCKED, so an event goes to one relay at a time.
 */
@Injectable()
export class SecurityEventOutbox {
  /**
   * One INSERT for the events recorded while the previous one was in the database: under load a
   * recorded event costs a share of a statement, alone it waits for nobody.
   */
  private readonly appendOne = batchWhileInFlight<SecurityEvent, void>({
    runBatch: async (events) => {
      await this.appendRows(events);
      return events.map(() => undefined);
    },
    runAlone: (event) => this.appendRows([event]),
    maxBatchSize: MAX_APPEND_BATCH,
  });

  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  /** Resolves once the event is committed. */
  append(event: SecurityEvent): Promise<void> {
    return this.appendOne(event);
  }

  claim(limit: number, leaseSeconds: number): Promise<ClaimedSecurityEvent[]> {
    return query<ClaimedSecurityEvent>(this.pool, CLAIM, [limit, leaseSeconds]);
  }

  async markSent(ids: readonly string[]): Promise<void> {
    await query(this.pool, MARK_SENT, [ids]);
  }

  /** `delays`: seconds until each event's next attempt, in the order of `claimed`. */
  async retryLater(claimed: readonly ClaimedSecurityEvent[], delays: readonly number[], error: string): Promise<void> {
    await query(this.pool, RETRY_LATER, [claimed.map((event) => event.id), claimed.map((event) => event.attempts), delays, error.slice(0, 500)]);
  }

  /** Events that can never be sent (the ingest would refuse them whatever the retries). */
  async drop(ids: readonly string[]): Promise<void> {
    await query(this.pool, DROP, [ids]);
  }

  private async appendRows(events: readonly SecurityEvent[]): Promise<void> {
    const rows = events.map(rowOf);
    await query(
      this.pool,
      APPEND,
      [rows.map((row) => row.id), rows.map((row) => row.payload)],
    );
  }
}
