import type { TokenPrincipal } from '@platform/bearer-auth';
import { BUSINESS_SCOPES } from '@platform/scopes';

/** A token principal as the guard would make it, for calling services directly. */
export function tokenOf(schoolId: string, userId: string, scopes: readonly string[] = BUSINESS_SCOPES): TokenPrincipal {
  return { kind: 'token', schoolId, userId, clientId: 'test-client', scopes, expiresAt: Math.floor(Date.now() / 1000) + 3600 };
}

export const DEMO_OWNER = tokenOf('demo-school', 'demo-owner');
export const OTHER_OWNER = tokenOf('other-school', 'other-owner');
export const ANONYMOUS = { kind: 'anonymous' } as const;
