import type { Prompt } from './authorization-request';
import { type ConsentClient, decideConsent, identityAssured, redirectUrisDigest, scopeToRemember, type StoredConsent, whyNotRemembered } from './remembered-consent';

const NOW = new Date('2026-11-28T12:00:00Z');
const LATER = new Date('2026-12-28T12:00:00Z');
const LOOPBACK = 'http://127.0.0.1:8765/callback';
const HOSTED = 'https://agent.example.com/callback';

const dynamic: ConsentClient = { kind: 'dynamic', tokenEndpointAuthMethod: 'none', redirectUris: [LOOPBACK] };
const cimdCli: ConsentClient = { kind: 'metadata_document', tokenEndpointAuthMethod: 'none', redirectUris: [LOOPBACK] };
const cimdHosted: ConsentClient = { kind: 'metadata_document', tokenEndpointAuthMethod: 'none', redirectUris: [HOSTED] };

function stored(changes: Partial<StoredConsent> = {}, redirectUris: readonly string[] = [LOOPBACK]): StoredConsent {
  return { id: 'consent-1', scope: 'openid students:read', redirectUrisDigest: redirectUrisDigest(redirectUris), expiresAt: LATER, ...changes };
}

function request(scopes: string[], { prompt, redirectUri = LOOPBACK }: { prompt?: Prompt; redirectUri?: string } = {}) {
  return { scopes, redirectUri, prompts: new Set<Prompt>(prompt ? [prompt] : []) };
}

describe('decideConsent', () => {
  it.each<[string, ReturnType<typeof request>, ConsentClient, StoredConsent | null, object]>([
    ['nothing remembered: ask everything', request(['openid']), dynamic, null, { kind: 'ask', asked: ['openid'], alreadyGranted: [] }],
    ['everything asked remembered: skip', request(['openid', 'students:read']), dynamic, stored(), { kind: 'skip', consentId: 'consent-1' }],
    ['less than remembered: skip', request(['students:read']), dynamic, stored(), { kind: 'skip', consentId: 'consent-1' }],
    ['a step-up: ask what is new, mention the rest', request(['openid', 'orders:read', 'students:read']), dynamic, stored(), { kind: 'ask', asked: ['orders:read'], alreadyGranted: ['openid', 'students:read'] }],
    ['prompt=consent: ask everything', request(['openid'], { prompt: 'consent' }), dynamic, stored(), { kind: 'ask', asked: ['openid'], alreadyGranted: [] }],
    ['lapsed: ask everything', request(['openid']), dynamic, stored({ expiresAt: NOW }), { kind: 'ask', asked: ['openid'], alreadyGranted: [] }],
    ['other redirect URIs since: ask everything', request(['openid']), dynamic, stored({ redirectUrisDigest: redirectUrisDigest([LOOPBACK, 'http://127.0.0.1/other']) }), { kind: 'ask', asked: ['openid'], alreadyGranted: [] }],
    ['a metadata document on loopback: ask everything', request(['openid']), cimdCli, stored(), { kind: 'ask', asked: ['openid'], alreadyGranted: [] }],
    ['a metadata document on https: skip', request(['openid'], { redirectUri: HOSTED }), cimdHosted, stored({}, [HOSTED]), { kind: 'skip', consentId: 'consent-1' }],
  ])('%s', (_name, asked, client, consent, expected) => {
    expect(decideConsent(asked, client, consent, NOW)).toEqual(expected);
  });

  it('says why a remembered consent is not used', () => {
    expect(whyNotRemembered(request(['openid']), dynamic, null, NOW)).toBe('none');
    expect(whyNotRemembered(request(['openid']), dynamic, stored({ expiresAt: NOW }), NOW)).toBe('expired');
    expect(whyNotRemembered(request(['openid']), { ...dynamic, redirectUris: [LOOPBACK, 'http://[::1]/cb'] }, stored(), NOW)).toBe('redirect-uris-changed');
    expect(whyNotRemembered(request(['openid'], { prompt: 'consent' }), dynamic, stored(), NOW)).toBe('prompt-consent');
    expect(whyNotRemembered(request(['openid']), cimdCli, stored(), NOW)).toBe('identity-not-assured');
    expect(whyNotRemembered(request(['openid']), dynamic, stored(), NOW)).toBeNull();
  });
});

describe('identityAssured (RFC 8252 §8.6)', () => {
  it.each<[string, ConsentClient, string, boolean]>([
    ['an https redirect URI', cimdHosted, HOSTED, true],
    ['a client that authenticates (private_key_jwt)', { ...cimdCli, tokenEndpointAuthMethod: 'private_key_jwt' }, LOOPBACK, true],
    ['a client_id issued to one installation (dynamic registration)', dynamic, LOOPBACK, true],
    ['a public metadata document on a loopback redirect URI', cimdCli, LOOPBACK, false],
  ])('%s: %s', (_name, client, redirectUri, expected) => {
    expect(identityAssured(client, redirectUri)).toBe(expected);
  });
});

describe('the remembered scope and redirect URIs', () => {
  it('adds an approval to what still holds, else starts from it', () => {
    const digest = redirectUrisDigest([LOOPBACK]);
    expect(scopeToRemember(stored(), ['orders:read'], digest, NOW)).toBe('openid students:read orders:read');
    expect(scopeToRemember(stored({ expiresAt: NOW }), ['orders:read'], digest, NOW)).toBe('orders:read');
    expect(scopeToRemember(stored(), ['orders:read'], redirectUrisDigest([HOSTED]), NOW)).toBe('orders:read');
    expect(scopeToRemember(null, ['openid'], digest, NOW)).toBe('openid');
  });

  it('digests the redirect URIs as a set', () => {
    expect(redirectUrisDigest([HOSTED, LOOPBACK, HOSTED])).toBe(redirectUrisDigest([LOOPBACK, HOSTED]));
    expect(redirectUrisDigest([LOOPBACK])).not.toBe(redirectUrisDigest([HOSTED]));
  });
});
