/** URL of a real PostgreSQL server (any database on it), when the run provides one. */
export function realDatabaseUrl(): string | undefined {
  return process.env['DATABASE_URL'] || undefined;
}

/** URL of a real Redis, when the run provides one. */
export function realRedisUrl(): string | undefined {
  return process.env['REDIS_URL'] || undefined;
}

function describeIf(available: boolean, needs: string, name: string, suite: () => void): void {
  if (available) {
    describe(name, suite);
    return;
  }
  describe(name, () => {
    it.skip(`skipped: needs ${needs}`, () => undefined);
  });
}

/** A suite that runs only against a real PostgreSQL; otherwise one visibly skipped test. */
export function describeIfPostgres(name: string, suite: () => void): void {
  describeIf(realDatabaseUrl() !== undefined, 'a real PostgreSQL (set DATABASE_URL)', name, suite);
}

/** A suite that runs only against a real Redis; otherwise one visibly skipped test. */
export function describeIfRedis(name: string, suite: () => void): void {
  describeIf(realRedisUrl() !== undefined, 'a real Redis (set REDIS_URL)', name, suite);
}
