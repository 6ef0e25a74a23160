import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import type { PlatformEvent } from '@platform/contracts';
import { PrismaService } from '../database/prisma.service';
import type { Prisma } from '../generated/prisma/client';
import { type BusinessChange, businessEvent } from './business-event';

/** The client a write runs on: the service's own, or the transaction it is part of. */
export type Db = Prisma.TransactionClient;

/** Appends events to the outbox within the caller's transaction: one INSERT, nothing else. */
export async function appendToOutbox(tx: Db, events: readonly PlatformEvent[]): Promise<void> {
  const rows = events.filter((event) => event.school_id !== null);
  if (rows.length === 0) return;
  await tx.outboxEvent.createMany({
    data: rows.map((event) => ({ id: event.id, schoolId: event.school_id as string, type: event.type, payload: JSON.stringify(event) })),
  });
}

/**
 * A change and the business events it reports, in one transaction: the event is written if and
 * only if the change commits, so a webhook is never lost and never sent for a change that
 * rolled back. The dispatcher (webhooks/) fans the outbox out to the subscriptions later.
 */
@Injectable()
export class EventOutbox {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Runs `change` in a transaction, then appends the events `report` derives from its result
   * (none: nothing is appended). A failure of either rolls both back.
   */
  async write<T>(schoolId: string, principal: AuthPrincipal, change: (tx: Db) => Promise<T>, report: (result: T) => readonly BusinessChange[]): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      const result = await change(tx);
      await appendToOutbox(
        tx,
        report(result).map((item) => businessEvent(schoolId, principal, item)),
      );
      return result;
    });
  }
}
