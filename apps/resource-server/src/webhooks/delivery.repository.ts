import { Injectable } from '@nestjs/common';
import { v7 as uuidv7 } from 'uuid';
import { PrismaService } from '../database/prisma.service';

/** A delivery a worker took, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  schoolId: string;
  subscriptionId: string;
  eventId: string;
  payload: string;
  /** This attempt's number (1 for the first). */
  attempts: number;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** How an attempt ended, for the delivery and its subscription. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; status: number | null; error: string; delaySeconds: number }
  | { kind: 'failed'; status: number | null; error: string; pauseReason: string };

/**
 * PostgreSQL's clock in the columns' terms: `timestamp(3)` holding UTC (as Prisma writes them),
 * whatever the session's TimeZone. Every replica compares against the database's one clock.
 */
const NOW = `(now() AT TIME ZONE 'UTC')`;

/**
 * The delivery queue. Several replicas run it at once: each batch is taken with
 * `FOR UPDATE SKIP LOCKED`, so an outbox event or a due delivery goes to one worker, never to
 * each of them.
 */
@Injectable()
export class DeliveryRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Fans a batch of outbox events out to their school's subscriptions of their type that
   * existed when the event happened (paused ones too: their deliveries wait) and removes them from the outbox, in one transaction: a
   * worker that dies here leaves the batch in the outbox, and the unique (subscription, event)
   * makes a second fan-out a no-op. The number of events taken.
   */
  async dispatchOutbox(limit: number): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      const events = await tx.$queryRawUnsafe<{ id: string; school_id: string; type: string; payload: string }[]>(
        `SELECT id, school_id, type, payload FROM event_outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        limit,
      );
      if (events.length === 0) return 0;
      const schools = [...new Set(events.map((event) => event.school_id))];
      const subscriptions = await tx.webhookSubscription.findMany({
        where: { schoolId: { in: schools } },
        select: { id: true, schoolId: true, eventTypes: true, createdAt: true },
      });
      const now = new Date();
      const deliveries = events.flatMap((event) => {
        // A subscription receives what happens from its creation on, not what waited in the outbox before it.
        const occurredAt = new Date((JSON.parse(event.payload) as { occurred_at: string }).occurred_at);
        return subscriptions
          .filter(
            (subscription) =>
              subscription.schoolId === event.school_id && subscription.eventTypes.includes(event.type) && subscription.createdAt <= occurredAt,
          )
          .map((subscription) => ({
            id: uuidv7(),
            schoolId: event.school_id,
            subscriptionId: subscription.id,
            eventId: event.id,
            eventType: event.type,
            payload: event.payload,
            nextAttemptAt: now,
            createdAt: now,
          }));
      });
      if (deliveries.length > 0) await tx.webhookDelivery.createMany({ data: deliveries, skipDuplicates: true });
      await tx.outboxEvent.deleteMany({ where: { id: { in: events.map((event) => event.id) } } });
      return events.length;
    });
  }

  /**
   * Takes up to `limit` due deliveries of active subscriptions: each gets its attempt number and
   * is moved `leaseSeconds` ahead, in one statement. The worker then sends it without holding a
   * lock or a connection; one that dies before recording the outcome leaves it due again when
   * the lease ends (at-least-once: the receiver de-duplicates by webhook-id).
   */
  claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    return this.prisma.$queryRawUnsafe<ClaimedDelivery[]>(
      `UPDATE webhook_deliveries d
          SET attempts = d.attempts + 1,
              next_attempt_at = ${NOW} + make_interval(secs => $2),
              last_attempt_at = ${NOW}
         FROM webhook_subscriptions s
        WHERE d.id IN (
                SELECT due.id
                  FROM webhook_deliveries due
                  JOIN webhook_subscriptions active ON active.school_id = due.school_id AND active.id = due.subscription_id
                 WHERE due.status = 'pending' AND due.next_attempt_at <= ${NOW} AND active.status = 'active'
                 ORDER BY due.next_attempt_at
                 LIMIT $1
                   FOR UPDATE OF due SKIP LOCKED)
          AND s.school_id = d.school_id AND s.id = d.subscription_id
      RETURNING d.id, d.school_id AS "schoolId", d.subscription_id AS "subscriptionId", d.event_id AS "eventId", d.payload,
                d.attempts, s.url, s.secret, s.previous_secret AS "previousSecret", s.previous_secret_expires_at AS "previousSecretExpiresAt"`,
      limit,
      leaseSeconds,
    );
  }

  /**
   * Records how an attempt ended, if the delivery is still the one claimed (same attempt, still
   * pending: a worker whose lease ran out and whose delivery was taken again records nothing),
   * and keeps the subscription's failure count; a delivery that failed for good pauses its subscription.
   */
  async recordOutcome(claimed: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    const mine = { id: claimed.id, attempts: claimed.attempts, status: 'pending' };
    const subscription = { schoolId_id: { schoolId: claimed.schoolId, id: claimed.subscriptionId } };
    return this.prisma.$transaction(async (tx) => {
      const now = new Date();
      switch (outcome.kind) {
        case 'delivered': {
          const { count } = await tx.webhookDelivery.updateMany({
            where: mine,
            data: { status: 'delivered', deliveredAt: now, lastStatus: outcome.status, lastError: null },
          });
          if (count === 1) await tx.webhookSubscription.update({ where: subscription, data: { consecutiveFailures: 0 } });
          return count === 1;
        }
        case 'retry': {
          const { count } = await tx.webhookDelivery.updateMany({
            where: mine,
            data: { nextAttemptAt: new Date(now.getTime() + outcome.delaySeconds * 1000), lastStatus: outcome.status, lastError: outcome.error },
          });
          if (count === 1) await tx.webhookSubscription.update({ where: subscription, data: { consecutiveFailures: { increment: 1 } } });
          return count === 1;
        }
        case 'failed': {
          const { count } = await tx.webhookDelivery.updateMany({
            where: mine,
            data: { status: 'failed', lastStatus: outcome.status, lastError: outcome.error },
          });
          if (count === 1) {
            await tx.webhookSubscription.updateMany({
              where: { schoolId: claimed.schoolId, id: claimed.subscriptionId, status: 'active' },
              data: { status: 'paused', pausedReason: outcome.pauseReason, pausedAt: now, consecutiveFailures: { increment: 1 } },
            });
          }
          return count === 1;
        }
      }
    });
  }
}
