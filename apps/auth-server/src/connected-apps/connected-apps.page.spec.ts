import { parse } from 'node-html-parser';
import { DEFAULT_BRANDING } from '../branding/branding';
import { renderConnectedAppsPage } from './connected-apps.page';
import type { ConnectedApp } from './connected-apps.repository';

const LOOPBACK = 'http://127.0.0.1:8765/callback';

function app(changes: Partial<ConnectedApp>): ConnectedApp {
  return {
    clientId: 'client-1',
    name: 'Claude Code',
    kind: 'dynamic',
    scopes: ['openid', 'coupons:read', 'coupons:write'],
    firstAuthorizedAt: new Date('2026-11-02T09:15:00Z'),
    lastUsedAt: new Date('2026-11-27T18:40:00Z'),
    device: 'Chrome on macOS',
    network: '203.0.113.0/24',
    rememberedUntil: new Date('2026-12-27T18:40:00Z'),
    redirectUris: [LOOPBACK],
    tokenEndpointAuthMethod: 'none',
    ...changes,
  };
}

function render(apps: ConnectedApp[], currentNetwork: string | null = null) {
  const html = renderConnectedAppsPage({
    apps,
    currentNetwork,
    userName: 'Dana Demo',
    userEmail: 'demo@academy.test',
    csrfToken: 't',
    disconnectAction: '/oauth/connected-apps/disconnect',
    signOutAction: '/oauth/connected-apps/sign-out',
    branding: DEFAULT_BRANDING,
  });
  return parse(html)
    .querySelectorAll('section')
    .map((section) => section.querySelectorAll('p.note').map((note) => note.text.replace(/\s+/g, ' ').trim()));
}

describe('the connected-apps page tells apart apps of one name', () => {
  it('by client id, the browser and network each was approved from, and when', () => {
    const [laptop, desktop] = render(
      [app({}), app({ clientId: 'client-2', device: 'Firefox on Windows', network: '198.51.100.0/24', firstAuthorizedAt: new Date('2026-11-20T10:00:00Z') })],
      '198.51.100.0/24',
    );
    expect(laptop).toEqual([
      'Client ID: client-1',
      'Approved from Chrome on macOS, network 203.0.113.0/24.',
      'First authorized 2 Nov 2026, 09:15 UTC. Last used 27 Nov 2026, 18:40 UTC.',
      'It can come back for these without asking you until 27 Dec 2026, unless you disconnect it.',
    ]);
    expect(desktop[1]).toBe('Approved from Firefox on Windows, network 198.51.100.0/24 (this network).');
    expect(desktop[2]).toBe('First authorized 20 Nov 2026, 10:00 UTC. Last used 27 Nov 2026, 18:40 UTC.');
  });

  it("a metadata-document app by its web site's host", () => {
    const [hosted] = render([app({ clientId: 'https://agent.example.com/oauth/client.json', kind: 'metadata_document', redirectUris: ['https://agent.example.com/cb'] })]);
    expect(hosted[0]).toBe('Web site: agent.example.com');
    expect(hosted[3]).toMatch(/^It can come back for these without asking you until/);
  });

  it('says nothing of coming back without asking when it always asks (a metadata document on loopback without a key)', () => {
    const [cli] = render([app({ clientId: 'https://cli.example.com/client.json', kind: 'metadata_document' })]);
    expect(cli.some((note) => note.includes('without asking'))).toBe(false);
  });

  it('grants approved before anything was remembered: no browser, no network, nothing remembered', () => {
    const [old] = render([app({ device: null, network: null, rememberedUntil: null })]);
    expect(old).toEqual(['Client ID: client-1', 'First authorized 2 Nov 2026, 09:15 UTC. Last used 27 Nov 2026, 18:40 UTC.']);
  });

  it('shows a write scope and the read scope it includes as one row', () => {
    const html = renderConnectedAppsPage({
      apps: [app({})],
      userName: 'Dana Demo',
      userEmail: 'demo@academy.test',
      csrfToken: 't',
      disconnectAction: '/d',
      signOutAction: '/s',
      branding: DEFAULT_BRANDING,
    });
    expect(parse(html).querySelectorAll('ul.scopes li').map((li) => li.text.replace(/\s+/g, ' ').trim())).toEqual([
      'Sign you in and know who you are openid',
      'See coupons; create, edit and delete coupons coupons:read coupons:write',
    ]);
  });
});
