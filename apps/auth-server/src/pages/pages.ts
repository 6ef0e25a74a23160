import { SCOPE_GROUPS, includedScope, isRequestableScope, scopeDefinition, type ScopeGroup } from '@platform/scopes';
import { Eta } from 'eta';
import { type Branding, DEFAULT_BRANDING } from '../branding/branding';
import { themeStyle } from '../branding/theme';
import { CONSENT_TEMPLATE, ERROR_TEMPLATE, LAYOUT_TEMPLATE, LOGIN_TEMPLATE } from './templates';

// autoEscape is eta's default; set explicitly because the pages' safety depends on it.
const eta = new Eta({ autoEscape: true, cache: true, useWith: false });
eta.loadTemplate('@layout', LAYOUT_TEMPLATE);
eta.loadTemplate('@login', LOGIN_TEMPLATE);
eta.loadTemplate('@consent', CONSENT_TEMPLATE);
eta.loadTemplate('@error', ERROR_TEMPLATE);

/** Form fields carried through a page unchanged (the pending authorization request). */
export type HiddenFields = ReadonlyArray<readonly [name: string, value: string]>;

/** What the layout shows of the school: its name, theme and logo. */
function layoutData(branding: Branding) {
  return { brand: branding.name, themeStyle: themeStyle(branding.theme), logo: branding.logo };
}

/** The CSP img-src sources a page with this branding needs: the logo's origin, if any. */
export function imageSourcesOf(branding: Branding): string[] {
  return branding.logo ? [branding.logo.cspSource] : [];
}

export interface LoginPageData {
  clientName: string;
  action: string;
  csrfToken: string;
  hidden: HiddenFields;
  /** Pre-filled after a failed attempt. */
  email?: string;
  error?: string;
  /** The error is about the credentials: both fields are marked invalid. */
  invalid?: boolean;
  /** The default school's, before sign-in. */
  branding?: Branding;
}

export function renderLoginPage({ branding = DEFAULT_BRANDING, ...data }: LoginPageData): string {
  return eta.render('@login', {
    title: 'Sign in',
    error: undefined,
    invalid: false,
    ...data,
    // After the spread: an explicit `email: undefined` would otherwise render as "undefined".
    email: data.email ?? '',
    ...layoutData(branding),
  });
}

export interface ConsentPageData {
  clientName: string;
  /** host:port of the redirect URI, so that the user sees where the code goes. */
  redirectHost: string;
  /** The client_id URL's host (metadata-document clients): the application's identity. */
  clientHost?: string;
  /** Every redirect URI is loopback: the app runs on this computer, whatever its name or site says. */
  loopbackOnly?: boolean;
  /** What the page asks for: the request's scopes not approved before. */
  scopes: readonly string[];
  /** The request's scopes approved before, mentioned in one sentence. */
  alreadyGranted?: readonly string[];
  userName: string;
  userEmail: string;
  schoolName?: string;
  action: string;
  csrfToken: string;
  hidden: HiddenFields;
  error?: string;
  /** The signed-in user's school's. */
  branding?: Branding;
}

export interface ScopeGroupView {
  label: string;
  scopes: { name: string; description: string }[];
}

/**
 * The requested scopes in words, grouped and ordered as in the catalogue. A write scope and the
 * read scope it includes are one row ("See coupons; create, edit and delete coupons"): the
 * user reads once what the pair allows.
 */
export function describeScopes(scopes: readonly string[]): ScopeGroupView[] {
  const groups = new Map<ScopeGroup, ScopeGroupView>();
  for (const group of Object.keys(SCOPE_GROUPS) as ScopeGroup[]) {
    groups.set(group, { label: SCOPE_GROUPS[group], scopes: [] });
  }
  const includedByAnother = new Set(scopes.map(includedScope).filter((included) => included !== undefined));
  for (const name of scopes) {
    // Validation has already refused unknown scopes; skip rather than render a blank row.
    if (!isRequestableScope(name) || includedByAnother.has(name)) continue;
    // offline_access (OpenID Connect Core §11) reads "Stay signed in ...".
    const { group, description } = scopeDefinition(name);
    const included = includedScope(name);
    if (included && scopes.includes(included) && isRequestableScope(included)) {
      const read = scopeDefinition(included).description;
      groups.get(group)?.scopes.push({ name: `${included} ${name}`, description: `${read}; ${lowerFirst(description)}` });
    } else {
      groups.get(group)?.scopes.push({ name, description });
    }
  }
  return [...groups.values()].filter((group) => group.scopes.length > 0);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export function renderConsentPage({ branding = DEFAULT_BRANDING, ...data }: ConsentPageData): string {
  return eta.render('@consent', {
    title: `Allow ${data.clientName}`,
    error: undefined,
    clientHost: undefined,
    loopbackOnly: false,
    ...data,
    ...layoutData(branding),
    groups: describeScopes(data.scopes),
    alreadyGranted: describeScopes(data.alreadyGranted ?? [])
      .flatMap((group) => group.scopes.map((scope) => scope.description))
      .join('; '),
  });
}

export interface ErrorPageData {
  heading?: string;
  description: string;
  /** The OAuth error code, shown for the developer of the application. */
  code?: string;
  advice?: string;
}

/**
 * Always in the platform's neutral branding: the request failed before (or regardless of)
 * any school, and a page about a broken request should not look like the school's.
 */
export function renderErrorPage(data: ErrorPageData): string {
  return eta.render('@error', {
    title: 'Sign-in problem',
    ...layoutData(DEFAULT_BRANDING),
    heading: 'This sign-in request cannot be completed',
    advice: 'Go back to the application you came from and start the sign-in again. If this keeps happening, contact the developer of that application.',
    code: undefined,
    ...data,
  });
}
