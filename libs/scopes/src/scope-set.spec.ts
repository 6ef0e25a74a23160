import { ALL_SCOPES, AUTHORIZATION_SERVER_SCOPES, BUSINESS_SCOPES, OFFLINE_ACCESS, SCOPES } from './catalogue';
import {
  formatScopes,
  hasAllScopes,
  includedScope,
  scopesOutside,
  isRequestableScope,
  isScope,
  parseScopeString,
  scopeDefinition,
  unknownScopes,
  withIncludedScopes,
} from './scope-set';

describe('the scope catalogue', () => {
  it('has the 42 scopes of the specification and issue 31, each described', () => {
    expect(ALL_SCOPES).toHaveLength(42);
    expect(BUSINESS_SCOPES).toHaveLength(39);
    for (const scope of ALL_SCOPES) expect(SCOPES[scope].description.length).toBeGreaterThan(5);
  });
});

describe('scope strings (RFC 6749 §3.3)', () => {
  it('splits on spaces, drops duplicates and sorts known scopes in catalogue order', () => {
    expect(parseScopeString('students:read openid  students:read courses:read')).toEqual([
      'openid',
      'courses:read',
      'students:read',
    ]);
  });

  it('is case-sensitive and keeps unknown scopes for the caller to refuse', () => {
    const scopes = parseScopeString('OpenID courses:read');
    expect(unknownScopes(scopes)).toEqual(['OpenID']);
  });

  it('treats a missing scope as empty', () => {
    expect(parseScopeString(undefined)).toEqual([]);
    expect(parseScopeString('')).toEqual([]);
  });

  it('formats known scopes canonically', () => {
    expect(formatScopes(['students:read', 'openid'])).toBe('openid students:read');
  });

  it('checks that every required scope is granted', () => {
    expect(hasAllScopes(['openid', 'students:read'], ['students:read'])).toBe(true);
    expect(hasAllScopes(['openid'], ['students:read'])).toBe(false);
    expect(hasAllScopes(['openid'], [])).toBe(true);
  });

  it('scopesOutside: the scopes not allowed, in their order', () => {
    expect(scopesOutside(['orders:read', 'openid', 'students:read'], ['openid'])).toEqual(['orders:read', 'students:read']);
    expect(scopesOutside(['openid'], ['openid', 'profile'])).toEqual([]);
    expect(scopesOutside([], [])).toEqual([]);
  });

  it('hasAllScopes answers exactly as scopesOutside being empty', () => {
    const lists: string[][] = [[], ['openid'], ['openid', 'students:read'], ['students:read', 'orders:read'], ['orders:read']];
    for (const granted of lists) {
      for (const required of lists) {
        expect(hasAllScopes(granted, required)).toBe(scopesOutside(required, granted).length === 0);
      }
    }
  });
});

describe('offline_access (OpenID Connect Core §11)', () => {
  it('is requestable but not in the catalogue: protected resources never list it', () => {
    expect(ALL_SCOPES).not.toContain(OFFLINE_ACCESS);
    expect(Object.keys(SCOPES)).not.toContain(OFFLINE_ACCESS);
    expect(AUTHORIZATION_SERVER_SCOPES).toEqual([...ALL_SCOPES, OFFLINE_ACCESS]);
    expect(isScope(OFFLINE_ACCESS)).toBe(false);
    expect(isRequestableScope(OFFLINE_ACCESS)).toBe(true);
    expect(scopeDefinition(OFFLINE_ACCESS).description).toMatch(/^Stay signed in/);
  });

  it('parses, formats and is not unknown', () => {
    const scopes = parseScopeString('offline_access openid');
    expect(scopes).toEqual(['openid', 'offline_access']);
    expect(unknownScopes(scopes)).toEqual([]);
    expect(formatScopes(scopes)).toBe('openid offline_access');
  });
});

describe('a write scope includes its read scope', () => {
  it('every write scope with a read scope of the same name includes it, and nothing else includes anything', () => {
    for (const scope of ALL_SCOPES) {
      const [resource, access] = scope.split(':');
      const read = `${resource}:read`;
      expect([scope, includedScope(scope)]).toEqual([scope, access === 'write' && isScope(read) ? read : undefined]);
    }
    // storage:write has no read scope to include.
    expect(includedScope('storage:write')).toBeUndefined();
    expect(includedScope('offline_access')).toBeUndefined();
    expect(includedScope('nonsense')).toBeUndefined();
  });

  it('withIncludedScopes adds the included read scopes, canonical order, each once', () => {
    expect(withIncludedScopes(['coupons:write', 'openid'])).toEqual(['openid', 'coupons:read', 'coupons:write']);
    expect(withIncludedScopes(['coupons:read', 'coupons:write'])).toEqual(['coupons:read', 'coupons:write']);
    expect(withIncludedScopes(['storage:write', 'offline_access'])).toEqual(['storage:write', 'offline_access']);
    expect(withIncludedScopes([])).toEqual([]);
  });

  it('keeps unknown entries for the caller to refuse', () => {
    expect(withIncludedScopes(['admin:everything', 'courses:write'])).toEqual(['courses:read', 'courses:write', 'admin:everything']);
  });
});
