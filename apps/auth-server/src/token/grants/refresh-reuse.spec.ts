import { decideRefresh, type PresentedRefreshToken, type RefreshDecision } from './refresh-reuse';

const NOW = new Date('2026-11-23T12:00:00Z');
const secondsAgo = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const live: PresentedRefreshToken = { rotatedAt: null, revokedAt: null, expiresAt: new Date(NOW.getTime() + 3600_000), grant: { revokedAt: null } };

describe('decideRefresh (RFC 9700 §4.14.2 with a reuse window)', () => {
  it.each<[string, Partial<PresentedRefreshToken>, number, RefreshDecision]>([
    ['a current token rotates', {}, 30, 'rotate'],
    ['rotated out a moment ago: a fresh pair (parallel refreshes)', { rotatedAt: secondsAgo(1) }, 30, 'grace'],
    ['rotated out exactly at the end of the window', { rotatedAt: secondsAgo(30) }, 30, 'grace'],
    ['rotated out just after the window: reuse', { rotatedAt: new Date(NOW.getTime() - 30_001) }, 30, 'reuse'],
    ['rotated out long ago: reuse', { rotatedAt: secondsAgo(3600) }, 30, 'reuse'],
    ['a window of 0 turns it off', { rotatedAt: NOW }, 0, 'reuse'],
    ['revoked, even inside the window', { rotatedAt: secondsAgo(1), revokedAt: secondsAgo(1) }, 30, 'invalid'],
    ['its grant revoked, even inside the window', { rotatedAt: secondsAgo(1), grant: { revokedAt: secondsAgo(1) } }, 30, 'invalid'],
    ['expired', { expiresAt: NOW }, 30, 'invalid'],
    ['expired and rotated', { expiresAt: secondsAgo(1), rotatedAt: secondsAgo(2) }, 30, 'invalid'],
  ])('%s', (_name, state, grace, decision) => {
    expect(decideRefresh({ ...live, ...state }, NOW, grace)).toBe(decision);
  });
});
