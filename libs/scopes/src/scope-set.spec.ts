import { ALL_SCOPES, BUSINESS_SCOPES, SCOPES } from './catalogue';
import { formatScopes, hasAllScopes, parseScopeString, unknownScopes } from './scope-set';

describe('the scope catalogue', () => {
  it('has the 38 scopes of the specification, each described', () => {
    expect(ALL_SCOPES).toHaveLength(38);
    expect(BUSINESS_SCOPES).toHaveLength(35);
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
  });
});
