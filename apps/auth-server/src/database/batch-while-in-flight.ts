import DataLoader from 'dataloader';
import { DatabaseError } from 'pg';

export interface InFlightBatching<Item, Result> {
  /** One statement for several items: one result per item, in their order. */
  runBatch(items: readonly Item[]): Promise<Result[]>;
  /** One item alone: a batch of one, and each item of a batch the database refused. */
  runAlone(item: Item): Promise<Result>;
  maxBatchSize: number;
}

/**
 * Group commit for one kind of statement, on DataLoader. A call made while no batch of its kind
 * is in the database goes at once (with the calls of the same turn of the event loop); calls
 * made while one is there wait for it and go together in the next. So a lone request pays no
 * wait, and under load PostgreSQL's per-statement work (the round trip, the executor's start,
 * the commit and its WAL flush) is paid once per batch instead of once per request.
 *
 * A batch the database refuses (an ErrorResponse: the statement was rolled back, nothing of it
 * committed) is run again item by item, so one item's bad input or a lock the batch would not
 * wait for (runBatch may refuse to) costs the others nothing. Any other error (the connection
 * lost: the outcome unknown) is every item's: retrying could repeat what already committed.
 */
export function batchWhileInFlight<Item, Result>(batching: InFlightBatching<Item, Result>): (item: Item) => Promise<Result> {
  const waiting: Array<() => void> = [];
  let busy = false;
  const dispatchNext = () => {
    const dispatch = waiting.shift();
    busy = dispatch !== undefined;
    // The next turn: the calls of this one join the batch before it goes.
    if (dispatch) setImmediate(dispatch);
  };
  const loader = new DataLoader<Item, Result>(
    async (items) => {
      try {
        return await runItems(batching, items);
      } finally {
        dispatchNext();
      }
    },
    {
      cache: false,
      maxBatchSize: batching.maxBatchSize,
      batchScheduleFn: (dispatch) => {
        waiting.push(dispatch);
        if (!busy) dispatchNext();
      },
    },
  );
  return (item) => loader.load(item);
}

async function runItems<Item, Result>(batching: InFlightBatching<Item, Result>, items: readonly Item[]): Promise<Result[]> {
  if (items.length === 1) return [await batching.runAlone(items[0] as Item)];
  try {
    return await batching.runBatch(items);
  } catch (error) {
    if (!(error instanceof DatabaseError)) throw error;
    // Each item's own promise, which DataLoader's load() adopts: an item that waits (for the
    // lock a revocation holds) holds up no other, and its failure is its own.
    return items.map((item) => batching.runAlone(item)) as unknown as Result[];
  }
}
