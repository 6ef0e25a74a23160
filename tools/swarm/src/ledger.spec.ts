import { compareWrites, type Entry, failuresOf, type JwksObservation, keyTimeline, parseLedger, type PostRow, rotationViolations, splitByKill, summarize } from '../ledger.mjs';

let sequence = 0;
const entry = (action: string, status: number, started: number, ended: number, extra: Partial<Entry> = {}): Entry => ({
  i: sequence++,
  worker: 0,
  action,
  method: 'GET',
  path: '/',
  status,
  started,
  ended,
  address: '10.0.1.2',
  ...extra,
});
const post = (slug: string): Record<string, unknown> => ({ title: `Swarm ${slug}`, slug, body: `body of ${slug}`, author_name: 'Swarm Stage' });
const write = (slug: string, status: number, id?: string) => entry('write', status, 0, 1, { slug, sent: post(slug), ...(id ? { id } : {}) });
const row = (slug: string, id: string, changes: Partial<PostRow> = {}): PostRow => ({ id, ...(post(slug) as Omit<PostRow, 'id'>), ...changes });

describe('the swarm stage ledger', () => {
  it('counts as failed every answer its action must not get, and no answer at all', () => {
    const entries = [entry('read', 200, 0, 1), entry('read', 503, 0, 1), entry('write', 201, 0, 1), entry('write', 0, 0, 1), entry('consent', 303, 0, 1), entry('token:refresh', 400, 0, 1)];
    expect(failuresOf(entries).map((e) => `${e.action} ${e.status}`)).toEqual(['read 503', 'write 0', 'token:refresh 400']);
  });

  it('tells failures in flight at the kill from those sent once the tasks were gone', () => {
    const kill = { start: 1_000, end: 1_050 };
    const failures = [entry('read', 0, 900, 1_001), entry('write', 502, 1_040, 1_300), entry('read', 0, 1_060, 1_200), entry('read', 503, 100, 200)];
    const { inFlight, beyond } = splitByKill(failures, kill);
    expect(inFlight.map((e) => e.started)).toEqual([900, 1_040]);
    expect(beyond.map((e) => e.started)).toEqual([1_060, 100]);
  });

  it('finds every write answered 201 in the database, with what was sent', () => {
    const entries = [write('r-1', 201, 'a'), write('r-2', 201, 'b'), write('r-3', 409)];
    expect(compareWrites(entries, [row('r-1', 'a'), row('r-2', 'b')])).toEqual({ sent: 3, answeredCreated: 2, rows: 2, inDoubt: 0, inDoubtWritten: 0, problems: [] });
  });

  it('reports a write answered 201 that the database lacks, or holds under another id', () => {
    const { problems } = compareWrites([write('r-1', 201, 'a'), write('r-2', 201, 'b')], [row('r-2', 'c')]);
    expect(problems).toEqual(['r-1: answered 201, not in the database', 'r-2: answered id b, the database has c']);
  });

  it('reports a row written for a write answered with an error, and a row the ledger never sent', () => {
    const { problems } = compareWrites([write('r-1', 503)], [row('r-1', 'a'), row('r-9', 'z')]);
    expect(problems).toEqual(['r-1: answered 503, yet in the database', 'r-9: in the database, never sent']);
  });

  it('counts a write without an answer as in doubt, written or not, but never half-written', () => {
    const entries = [write('r-1', 0), write('r-2', 0), write('r-3', 0)];
    const result = compareWrites(entries, [row('r-1', 'a'), row('r-3', 'c', { body: 'body of r-' })]);
    expect(result).toMatchObject({ inDoubt: 3, inDoubtWritten: 2 });
    expect(result.problems).toEqual(['r-3: body is "body of r-", sent "body of r-3"']);
  });

  it('finds no violation in a two-step rotation, and each one of a one-step rotation', () => {
    const jwks = (at: number, address: string, kids: string[]): JwksObservation => ({ at, address, status: 200, kids });
    const idToken = (kid: string, ended: number) => entry('token:code', 200, ended - 5, ended, { kid });
    const twoStep = [jwks(0, 'x', ['A']), jwks(10, 'x', ['A', 'B']), jwks(20, 'y', ['A', 'B']), jwks(30, 'x', ['B', 'A']), jwks(40, 'y', ['A', 'B'])];
    expect(rotationViolations([idToken('A', 5), idToken('A', 15), idToken('B', 31), idToken('B', 45)], twoStep)).toMatchObject({
      idTokens: 4,
      byKid: { A: 2, B: 2 },
      tasksWatched: 2,
      violations: [],
    });
    const oneStep = [jwks(0, 'x', ['A']), jwks(10, 'x', ['B', 'A']), jwks(12, 'y', ['A']), { at: 14, address: 'y', status: 0, kids: null }];
    expect(rotationViolations([idToken('B', 11)], oneStep).violations).toEqual([{ kid: 'B', at: 11, address: 'y', seenAt: 12, kids: ['A'] }]);
  });

  it('says when a new key reached each task\'s JWKS, the old tasks\' too, and when it first signed', () => {
    const jwks = (at: number, address: string, kids: string[]): JwksObservation => ({ at, address, status: 200, kids });
    const observations = [jwks(5, 'old', ['A']), jwks(12, 'old', ['A', 'B']), jwks(30, 'old', ['A', 'B']), jwks(11, 'new', ['B', 'A']), jwks(40, 'new', ['B', 'A']), jwks(20, 'late', ['A'])];
    const tokens = [entry('token:code', 200, 0, 8, { kid: 'A' }), entry('token:refresh', 200, 30, 35, { kid: 'B' }), entry('token:code', 200, 40, 45, { kid: 'B' })];
    expect(keyTimeline(tokens, observations, 'B', 10)).toEqual({
      tasks: [
        { address: 'old', old: true, firstSeen: 5, withKey: 12, lastSeen: 30 },
        { address: 'new', old: false, firstSeen: 11, withKey: 11, lastSeen: 40 },
        { address: 'late', old: false, firstSeen: 20, withKey: null, lastSeen: 20 },
      ],
      firstToken: 35,
    });
  });

  it('reads a ledger of JSON lines and sums it up by action, status and gateway task', () => {
    const entries = parseLedger(`${JSON.stringify(entry('read', 200, 1_000, 1_010))}\n${JSON.stringify(entry('read', 200, 1_500, 3_000, { address: '10.0.1.3' }))}\n\n`);
    expect(summarize(entries)).toEqual({ requests: 2, seconds: 2, byAction: { read: { 200: 2 } }, byAddress: { '10.0.1.2': 1, '10.0.1.3': 1 } });
  });
});
