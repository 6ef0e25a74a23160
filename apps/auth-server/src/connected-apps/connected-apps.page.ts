import { Eta } from 'eta';
import type { Branding } from '../branding/branding';
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

export interface ConnectedAppsPageData {
  apps: readonly ConnectedApp[];
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
}

/** What identifies the app to the user: the host of a metadata-document client_id, else the client_id. */
function appView(app: ConnectedApp): AppView {
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
  };
}

export function renderConnectedAppsPage({ branding, apps, ...data }: ConnectedAppsPageData): string {
  return eta.render('@connected-apps', {
    title: 'Connected apps',
    notice: undefined,
    error: undefined,
    schoolName: undefined,
    ...data,
    apps: apps.map(appView),
    brand: branding.name,
    themeStyle: themeStyle(branding.theme),
    logo: branding.logo,
  });
}
