export interface CandidateKey {
  kid: string;
  /** When (this process's clock, ms) the key has been published long enough to sign; undefined while unknown. */
  activeFrom?: number;
}

/**
 * Which key of the configured set signs at `now`:
 *  - the first of the set (the operator's order: the newest first) that has been published long
 *    enough (every replica's JWKS, and every client's cached copy, has it);
 *  - when none has (a first install, or a set whose keys are all new), the one published first,
 *    the set's order breaking ties: a single key signs at once;
 *  - while publication times are unknown (the database not reached since the start), the last
 *    of the set: the one that has been in it longest, which every replica publishes.
 */
export function chooseSigningKey<K extends CandidateKey>(keys: readonly K[], now: number): K {
  if (keys.length === 0) throw new Error('no signing key loaded');
  if (keys.some((key) => key.activeFrom === undefined)) return keys[keys.length - 1];
  const active = keys.find((key) => (key.activeFrom as number) <= now);
  if (active) return active;
  return keys.reduce((earliest, key) => ((key.activeFrom as number) < (earliest.activeFrom as number) ? key : earliest));
}
