import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isEventType, SECURITY_EVENT_TYPES } from '@platform/contracts';
import type { AuditFilter } from '../audit-log/audit-log.repository';
import { toSecurityEventView } from '../audit-log/audit-log.service';
import { toDeliveryView } from '../webhooks/webhooks.service';
import type { PrismaClient } from '../generated/prisma/client';
import { type CliDatabase, openResourceDatabase } from './database';

export const USAGE = `The platform's security events and webhook deliveries (staff only).

  npm run events -- list [--school ID | --platform] [--type TYPE] [--since ISO] [--until ISO]
                         [--actor ID] [--client CLIENT_ID] [--limit N]
  npm run events -- deliveries [--school ID] [--webhook ID] [--status pending|delivered|failed] [--limit N]
  npm run events -- redeliver DELIVERY_ID

list: every school's security events (newest first), one school's (--school), or the platform-wide
ones (--platform). Types: ${SECURITY_EVENT_TYPES.join(', ')}.
redeliver: the delivery is queued again from its first attempt (once its subscription is active).

Every command takes --json. Database: RESOURCE_DATABASE_URL; else DATABASE_URL + "_resource" (as
npm start); else the embedded database in .data/ (PLATFORM_DATA_DIR), which needs the platform stopped.`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: CliIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

const OPTIONS = {
  school: { type: 'string' },
  platform: { type: 'boolean' },
  type: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  actor: { type: 'string' },
  client: { type: 'string' },
  webhook: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

class UsageError extends Error {}

function date(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw new UsageError(`--${name}: not a date (ISO 8601, e.g. 2026-11-30T00:00:00Z)`);
  return parsed;
}

function limitOf(value: string | undefined): number {
  if (value === undefined) return 50;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit: an integer from 1 to 1000');
  return limit;
}

/** Runs one command; returns the exit status (0 done, 1 failure, 2 usage). */
export async function runEventsCli(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  io: CliIo = consoleIo,
  openDatabase: (env: Record<string, string | undefined>) => Promise<CliDatabase> = openResourceDatabase,
): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS }));
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, id, ...extra] = positionals;
  if (values.help || !command) {
    io.out(USAGE);
    return command || values.help ? 0 : 2;
  }
  if (!['list', 'deliveries', 'redeliver'].includes(command) || extra.length > 0 || (command === 'redeliver') !== Boolean(id)) {
    io.err(USAGE);
    return 2;
  }
  let database: CliDatabase | undefined;
  try {
    const limit = limitOf(values.limit);
    if (values.type !== undefined && !isEventType(values.type)) throw new UsageError(`--type: not an event type (${SECURITY_EVENT_TYPES.join(', ')})`);
    if (values.status !== undefined && !['pending', 'delivered', 'failed'].includes(values.status)) throw new UsageError('--status: pending, delivered or failed');
    if (values.school !== undefined && values.platform) throw new UsageError('--school and --platform: one or the other');
    const filter: AuditFilter = {
      schoolId: values.school,
      type: values.type,
      since: date('since', values.since),
      until: date('until', values.until),
      actorId: values.actor,
      clientId: values.client,
    };
    database = await openDatabase(env);
    const print = (value: unknown, lines: () => string[]) => {
      if (values.json) io.out(JSON.stringify(value, null, 2));
      else for (const line of lines()) io.out(line);
    };
    switch (command) {
      case 'list': {
        const events = (await listEvents(database.prisma, filter, values.platform === true, limit)).map(toSecurityEventView);
        print(events, () =>
          events.length === 0
            ? ['no events']
            : events.map(
                (event) =>
                  `${event.occurred_at}  ${event.type.padEnd(36)} ${(event.school_id ?? '(platform)').padEnd(16)} ${event.actor.type}:${event.actor.id ?? '-'}  ${event.outcome}${event.client_id ? `  client ${event.client_id}` : ''}${event.address ? `  from ${event.address}` : ''}  ${JSON.stringify(event.data)}`,
              ),
        );
        return 0;
      }
      case 'deliveries': {
        const rows = await database.prisma.webhookDelivery.findMany({
          where: {
            ...(values.school !== undefined ? { schoolId: values.school } : {}),
            ...(values.webhook !== undefined ? { subscriptionId: values.webhook } : {}),
            ...(values.status !== undefined ? { status: values.status } : {}),
          },
          orderBy: { id: 'desc' },
          take: limit,
        });
        const deliveries = rows.map((row) => ({ school_id: row.schoolId, webhook_id: row.subscriptionId, ...toDeliveryView(row) }));
        print(deliveries, () =>
          deliveries.length === 0
            ? ['no deliveries']
            : deliveries.map(
                (delivery) =>
                  `${delivery.created_at}  ${delivery.id}  ${delivery.event_type.padEnd(28)} ${delivery.school_id.padEnd(16)} ${delivery.status.padEnd(9)} attempts ${delivery.attempts}${delivery.last_status !== null ? `  last HTTP ${delivery.last_status}` : ''}${delivery.last_error && delivery.status !== 'delivered' ? `  (${delivery.last_error})` : ''}`,
              ),
        );
        return 0;
      }
      default: {
        const { count } = await database.prisma.webhookDelivery.updateMany({
          where: { id },
          data: { status: 'pending', attempts: 0, nextAttemptAt: new Date(), deliveredAt: null, lastError: null },
        });
        if (count === 0) {
          io.err(`no delivery ${id}`);
          return 1;
        }
        print({ id, status: 'pending' }, () => [`delivery ${id} queued again`]);
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(error.message);
      return 2;
    }
    io.err(`failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await database?.close();
  }
}

function listEvents(prisma: PrismaClient, filter: AuditFilter, platformOnly: boolean, limit: number) {
  return prisma.auditEvent.findMany({
    where: {
      ...(platformOnly ? { schoolId: null } : filter.schoolId !== undefined ? { schoolId: filter.schoolId } : {}),
      ...(filter.type !== undefined ? { type: filter.type } : {}),
      ...(filter.since || filter.until ? { occurredAt: { ...(filter.since ? { gte: filter.since } : {}), ...(filter.until ? { lt: filter.until } : {}) } } : {}),
      ...(filter.actorId !== undefined ? { actorId: filter.actorId } : {}),
      ...(filter.clientId !== undefined ? { clientId: filter.clientId } : {}),
    },
    orderBy: { id: 'desc' },
    take: limit,
  });
}
