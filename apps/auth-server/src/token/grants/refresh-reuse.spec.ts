import { decideRefresh, type PresentedRefreshToken, type RefreshDecision, type ReusePolicy } from './refresh-reuse';

const NOW = new Date('2026-11-23T12:00:00Z');
const secondsAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const live: PresentedRefreshToken = { rotatedAt: null, revokedAt: null, expiresAt: new Date(NOW.getTime() + 30 * 86_400_000), grant: { revokedAt: null } };
const DEFAULT: ReusePolicy = { graceSeconds: 30, staleSessionsKeepGrant: true };
const STRICT: ReusePolicy = { graceSeconds: 30, staleSessionsKeepGrant: false };
const SAME = true;
const ELSEWHERE = false;

describe('decideRefresh (RFC 9700 §4.14.2 with a reuse window and stale sessions)', () => {
  it.each<[string, Partial<PresentedRefreshToken>, ReusePolicy, boolean, RefreshDecision]>([
    ['a current token rotates', {}, DEFAULT, ELSEWHERE, 'rotate'],
    ['rotated out a moment ago: a fresh pair (parallel refreshes)', { rotatedAt: secondsAgo(1) }, DEFAULT, ELSEWHERE, 'grace'],
    ['rotated out 10 s ago, from anywhere: a fresh pair', { rotatedAt: secondsAgo(10) }, DEFAULT, ELSEWHERE, 'grace'],
    ['rotated out exactly at the end of the window', { rotatedAt: secondsAgo(30) }, DEFAULT, SAME, 'grace'],
    ['just after the window, from the rotating address: a stale session', { rotatedAt: new Date(NOW.getTime() - 30_001) }, DEFAULT, SAME, 'stale'],
    ['just after the window, from elsewhere: reuse', { rotatedAt: new Date(NOW.getTime() - 30_001) }, DEFAULT, ELSEWHERE, 'reuse'],
    ['5 min after, from the rotating address: a stale session', { rotatedAt: secondsAgo(300) }, DEFAULT, SAME, 'stale'],
    ['5 min after, from elsewhere: reuse', { rotatedAt: secondsAgo(300) }, DEFAULT, ELSEWHERE, 'reuse'],
    ['2 h after, from the rotating address: a stale session', { rotatedAt: secondsAgo(7200) }, DEFAULT, SAME, 'stale'],
    ['2 h after, from elsewhere: reuse', { rotatedAt: secondsAgo(7200) }, DEFAULT, ELSEWHERE, 'reuse'],
    ['strict rotation: 5 min after, even from the rotating address: reuse', { rotatedAt: secondsAgo(300) }, STRICT, SAME, 'reuse'],
    ['a window of 0 turns it off', { rotatedAt: NOW }, { ...STRICT, graceSeconds: 0 }, SAME, 'reuse'],
    ['a window of 0 with stale sessions: at once a stale session from the same address', { rotatedAt: NOW }, { ...DEFAULT, graceSeconds: 0 }, SAME, 'stale'],
    ['revoked, even inside the window', { rotatedAt: secondsAgo(1), revokedAt: secondsAgo(1) }, DEFAULT, SAME, 'invalid'],
    ['its grant revoked, even inside the window', { rotatedAt: secondsAgo(1), grant: { revokedAt: secondsAgo(1) } }, DEFAULT, SAME, 'invalid'],
    ['revoked, from the rotating address after the window: not a stale session', { rotatedAt: secondsAgo(300), revokedAt: secondsAgo(100) }, DEFAULT, SAME, 'invalid'],
    ['expired', { expiresAt: NOW }, DEFAULT, SAME, 'invalid'],
    ['expired and rotated', { expiresAt: secondsAgo(1), rotatedAt: secondsAgo(2) }, DEFAULT, ELSEWHERE, 'invalid'],
  ])('%s', (_name, state, policy, fromRotatingAddress, decision) => {
    expect(decideRefresh({ ...live, ...state }, NOW, policy, fromRotatingAddress)).toBe(decision);
  });
});
