import { SCOPE_GROUPS, SCOPES, isScope, type ScopeGroup } from '@platform/scopes';
import { Eta } from 'eta';
import { CONSENT_TEMPLATE, ERROR_TEMPLATE, LAYOUT_TEMPLATE, LOGIN_TEMPLATE } from './templates';

/** Shown when the school is not known yet (before sign-in). */
export const DEFAULT_BRAND = 'Course Platform';

// autoEscape is eta's default; set explicitly because the pages' safety depends on it.
const eta = new Eta({ autoEscape: true, cache: true, useWith: false });
eta.loadTemplate('@layout', LAYOUT_TEMPLATE);
eta.loadTemplate('@login', LOGIN_TEMPLATE);
eta.loadTemplate('@consent', CONSENT_TEMPLATE);
eta.loadTemplate('@error', ERROR_TEMPLATE);

/** Form fields carried through a page unchanged (the pending authorization request). */
export type HiddenFields = ReadonlyArray<readonly [name: string, value: string]>;

export interface LoginPageData {
  clientName: string;
  action: string;
  csrfToken: string;
  hidden: HiddenFields;
  /** Pre-filled after a failed attempt. */
  email?: string;
  error?: string;
}

export function renderLoginPage(data: LoginPageData): string {
  return eta.render('@login', {
    title: 'Sign in',
    brand: DEFAULT_BRAND,
    email: '',
    error: undefined,
    ...data,
  });
}

export interface ConsentPageData {
  clientName: string;
  /** host:port of the redirect URI, so that the user sees where the code goes. */
  redirectHost: string;
  scopes: readonly string[];
  userName: string;
  userEmail: string;
  schoolName?: string;
  action: string;
  csrfToken: string;
  hidden: HiddenFields;
  error?: string;
}

export interface ScopeGroupView {
  label: string;
  scopes: { name: string; description: string }[];
}

/** The requested scopes in words, grouped and ordered as in the catalogue. */
export function describeScopes(scopes: readonly string[]): ScopeGroupView[] {
  const groups = new Map<ScopeGroup, ScopeGroupView>();
  for (const group of Object.keys(SCOPE_GROUPS) as ScopeGroup[]) {
    groups.set(group, { label: SCOPE_GROUPS[group], scopes: [] });
  }
  for (const name of scopes) {
    // Validation has already refused unknown scopes; skip rather than render a blank row.
    if (!isScope(name)) continue;
    const { group, description } = SCOPES[name];
    groups.get(group)?.scopes.push({ name, description });
  }
  return [...groups.values()].filter((group) => group.scopes.length > 0);
}

export function renderConsentPage(data: ConsentPageData): string {
  return eta.render('@consent', {
    title: `Allow ${data.clientName}`,
    brand: data.schoolName ?? DEFAULT_BRAND,
    error: undefined,
    ...data,
    groups: describeScopes(data.scopes),
  });
}

export interface ErrorPageData {
  heading?: string;
  description: string;
  /** The OAuth error code, shown for the developer of the application. */
  code?: string;
  advice?: string;
}

export function renderErrorPage(data: ErrorPageData): string {
  return eta.render('@error', {
    title: 'Sign-in problem',
    brand: DEFAULT_BRAND,
    heading: 'This sign-in request cannot be completed',
    advice: 'Go back to the application you came from and start the sign-in again. If this keeps happening, contact the developer of that application.',
    code: undefined,
    ...data,
  });
}
