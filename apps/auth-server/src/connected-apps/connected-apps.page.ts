import { Eta } from 'eta';
import { identityAssured } from '../authorize/remembered-consent';
import type { Branding } from '../branding/branding';
import type { ClientKind } from '../client-metadata-documents/client-directory';
import { themeStyle } from '../branding/theme';
import { describeScopes, type ScopeGroupView } from '../pages/pages';
import { LAYOUT_TEMPLATE } from '../pages/templates';
import type { ConnectedApp } from './connected-apps.repository';
import { CONNECTED_APPS_TEMPLATE } from './connected-apps.template';

// The sign-in pages' layout and escaping (autoEscape: every `<%= %>` is escaped).
const eta = new Eta({ autoEscape: true, cache: true, useWith: false });
eta.loadTemplate('@layout', LAYOUT_TEMPLATE);
eta.loadTemplate('@connected-apps', CONNECTED_APPS_TEMPLATE);

const DATE_FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const DAY_FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: 'UTC' });

export interface ConnectedAppsPageData {
  apps: readonly ConnectedApp[];
  /** The network of the browser reading the page (pages/approving-browser.ts). */
  currentNetwork?: string | null;
  userName: string;
  userEmail: string;
  schoolName?: string;
  csrfToken: string;
  disconnectAction: string;
  signOutAction: string;
  notice?: string;
  error?: string;
  branding: Branding;
}

interface AppView {
  clientId: string;
  name: string;
  originLabel: string;
  origin: string;
  groups: ScopeGroupView[];
  firstAuthorized: string;
  firstAuthorizedIso: string;
  lastUsed: string;
  lastUsedIso: string;
  /** "Chrome on macOS, network 203.0.113.0/24 (this network)"; null when nothing was kept. */
  approvedFrom: string | null;
  /** "It can come back for these without asking you until 28 Dec 2026."; null when it cannot. */
  remembered: string | null;
}

/**
 * What identifies the app to the user: the host of a metadata-document client_id, else the
 * client_id; when it was first authorized and last used; and the browser and network it was
 * approved from, which is what tells apart several apps of one name.
 */
function appView(app: ConnectedApp, currentNetwork: string | null | undefined): AppView {
  const byUrl = app.kind === 'metadata_document';
  let host = app.clientId;
  if (byUrl) {
    try {
      host = new URL(app.clientId).host;
    } catch {
      /* the id stays as it is */
    }
  }
  return {
    clientId: app.clientId,
    name: app.name?.trim() || host,
    originLabel: byUrl ? 'Web site' : 'Client ID',
    origin: host,
    groups: describeScopes(app.scopes),
    firstAuthorized: `${DATE_FORMAT.format(app.firstAuthorizedAt)} UTC`,
    firstAuthorizedIso: app.firstAuthorizedAt.toISOString(),
    lastUsed: `${DATE_FORMAT.format(app.lastUsedAt)} UTC`,
    lastUsedIso: app.lastUsedAt.toISOString(),
    approvedFrom: approvedFrom(app, currentNetwork),
    remembered:
      app.rememberedUntil && rememberedConsentMayAnswer(app)
        ? `It can come back for these without asking you until ${DAY_FORMAT.format(app.rememberedUntil)}, unless you disconnect it.`
        : null,
  };
}

function approvedFrom(app: ConnectedApp, currentNetwork: string | null | undefined): string | null {
  const network = app.network && `network ${app.network}${app.network === currentNetwork ? ' (this network)' : ''}`;
  const parts = [app.device, network].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(', ') : null;
}

/** Whether remembered consent lets this app in without a page at any of its redirect URIs (authorize/remembered-consent.ts). */
function rememberedConsentMayAnswer(app: ConnectedApp): boolean {
  const client = { kind: app.kind as ClientKind, tokenEndpointAuthMethod: app.tokenEndpointAuthMethod };
  return app.redirectUris.some((uri) => identityAssured(client, uri));
}

export function renderConnectedAppsPage({ branding, apps, ...data }: ConnectedAppsPageData): string {
  return eta.render('@connected-apps', {
    title: 'Connected apps',
    notice: undefined,
    error: undefined,
    schoolName: undefined,
    ...data,
    apps: apps.map((app) => appView(app, data.currentNetwork)),
    brand: branding.name,
    themeStyle: themeStyle(branding.theme),
    logo: branding.logo,
  });
}
