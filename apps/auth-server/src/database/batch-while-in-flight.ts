import { DatabaseError } from 'pg';

export interface InFlightBatching<Item, Result> {
  /** One statement for several items: one result per item, in their order. */
  runBatch(items: readonly Item[]): Promise<Result[]>;
  /** One item alone: a batch of one, and each item of a batch the database refused. */
  runAlone(item: Item): Promise<Result>;
  maxBatchSize: number;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result | Promise<Result>): void;
  reject(error: unknown): void;
}

/**
 * Group commit for one kind of statement: one batch at a time in the database, and the calls
 * that come while it is there go together in the next (at most maxBatchSize). A call made while
 * none is in the database goes on the next turn of the event loop, with the calls of its own
 * turn: a lone request pays no wait, and under load the statement's round trip, the executor's
 * start, the commit and its WAL flush are paid once per batch instead of once per request.
 *
 * A batch the database refuses (an ErrorResponse: the statement was rolled back, nothing of it
 * committed) is run again item by item, each answered when it is done, so one item's bad input
 * or a lock the batch would not wait for costs the others nothing. Any other error (the
 * connection lost: the outcome unknown) is every item's: running it again could repeat what
 * already committed.
 */
export function batchWhileInFlight<Item, Result>(batching: InFlightBatching<Item, Result>): (item: Item) => Promise<Result> {
  const waiting: Waiting<Item, Result>[] = [];
  let inFlight = false;

  const sendNext = (): void => {
    inFlight = waiting.length > 0;
    if (inFlight) setImmediate(() => void send(waiting.splice(0, batching.maxBatchSize)));
  };
  const send = async (batch: Waiting<Item, Result>[]): Promise<void> => {
    try {
      if (batch.length === 1) {
        const [only] = batch as [Waiting<Item, Result>];
        only.resolve(await batching.runAlone(only.item));
        return;
      }
      const results = await batching.runBatch(batch.map(({ item }) => item));
      batch.forEach((call, index) => call.resolve(results[index] as Result));
    } catch (error) {
      if (batch.length > 1 && error instanceof DatabaseError) {
        // Not awaited: an item that waits (for the lock a revocation holds) holds up neither the
        // others nor the next batch.
        for (const call of batch) call.resolve(batching.runAlone(call.item));
      } else {
        for (const call of batch) call.reject(error);
      }
    } finally {
      sendNext();
    }
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!inFlight) sendNext();
    });
}
