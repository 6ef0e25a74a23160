/**
 * When an event the ingest did not take is sent again: base × 2^(n-1) seconds after its n-th
 * attempt, at most MAX_RELAY_DELAY_SECONDS, ±20 % random jitter so that the replicas' relays do
 * not all come back at the same moment after the resource server was away. With a 1 s base:
 * 1 s, 2 s, 4 s … then every 5 minutes until it answers. Events are never given up for being
 * refused: they wait in the outbox until the resource server takes them.
 */
export const MAX_RELAY_DELAY_SECONDS = 300;

export function relayBackoffSeconds(attempt: number, baseSeconds: number, random: () => number = Math.random): number {
  const delay = Math.min(baseSeconds * 2 ** Math.min(Math.max(0, attempt - 1), 30), MAX_RELAY_DELAY_SECONDS);
  return delay * (0.8 + 0.4 * random());
}
