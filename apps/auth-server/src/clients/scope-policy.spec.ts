import { InvalidScopeError } from '@platform/oauth-errors';
import { type ClientScopePolicy, LEAST_PRIVILEGE_DEFAULT_SCOPES, resolveRequestedScopes, selfRegisteredScopePolicy } from './scope-policy';

const registeredForStudents = selfRegisteredScopePolicy('openid students:read');
const registeredNothing = selfRegisteredScopePolicy('');
const staffIntegration: ClientScopePolicy = { defaultScopes: ['courses:read'], ceiling: ['courses:read', 'courses:write'] };
const writeOnlyCeiling: ClientScopePolicy = { defaultScopes: [], ceiling: ['coupons:write'] };

describe('resolveRequestedScopes (RFC 6749 §3.3)', () => {
  it.each<[string, string | undefined, ClientScopePolicy, string[]]>([
    ['a requested scope is asked as requested', 'students:read openid', registeredForStudents, ['openid', 'students:read']],
    ['step-up: beyond the registered scope is asked too (consent grants)', 'openid students:read orders:read', registeredForStudents, ['openid', 'students:read', 'orders:read']],
    ['write scopes beyond the registered ones as well, with the read scope they include', 'courses:write', registeredForStudents, ['courses:read', 'courses:write']],
    ['coupons:write brings coupons:read: the client can read what it wrote', 'openid coupons:write', registeredNothing, ['openid', 'coupons:read', 'coupons:write']],
    ['a write scope without a read scope stays alone', 'storage:write', registeredNothing, ['storage:write']],
    ['a registered default with a write scope brings its read scope too', undefined, selfRegisteredScopePolicy('students:write'), ['students:read', 'students:write']],
    ['no scope: the registered scope is the default', undefined, registeredForStudents, ['openid', 'students:read']],
    ['an empty scope counts as omitted', '', registeredForStudents, ['openid', 'students:read']],
    ['no scope, none registered: the least-privilege default', undefined, registeredNothing, [...LEAST_PRIVILEGE_DEFAULT_SCOPES]],
    ['offline_access is accepted (OpenID Connect Core §11)', 'openid offline_access', registeredNothing, ['openid', 'offline_access']],
    ['within a ceiling', 'courses:write', staffIntegration, ['courses:read', 'courses:write']],
    ['a ceiling that allows a write scope allows the read scope it includes', 'coupons:write', writeOnlyCeiling, ['coupons:read', 'coupons:write']],
    ['a read scope alone under a write-only ceiling', 'coupons:read', writeOnlyCeiling, ['coupons:read']],
    ['no scope under a ceiling: the default', undefined, staffIntegration, ['courses:read']],
  ])('%s', (_name, requested, policy, expected) => {
    expect(resolveRequestedScopes(requested, policy)).toEqual(expected);
  });

  it.each<[string, string | undefined, ClientScopePolicy, string]>([
    ['an unknown scope', 'openid admin:everything', registeredForStudents, 'Unknown scope: admin:everything'],
    ['a scope in the wrong case', 'OpenID', registeredNothing, 'Unknown scope: OpenID'],
    ['beyond a ceiling', 'courses:read students:read', staffIntegration, 'This client may not be granted scope: students:read'],
    ['a write scope beyond a ceiling that has only its read scope', 'coupons:write', { defaultScopes: [], ceiling: ['coupons:read'] }, 'This client may not be granted scope: coupons:write'],
    ['a scope parameter too long', 'a '.repeat(3000), registeredNothing, 'The scope parameter is too long'],
  ])('refuses %s with invalid_scope', (_name, requested, policy, description) => {
    expect(() => resolveRequestedScopes(requested, policy)).toThrow(new InvalidScopeError(description));
    try {
      resolveRequestedScopes(requested, policy);
    } catch (error) {
      expect((error as InvalidScopeError).toBody()).toEqual({ error: 'invalid_scope', error_description: description });
    }
  });

  it('the least-privilege default has no write scope and no school data', () => {
    expect(LEAST_PRIVILEGE_DEFAULT_SCOPES).toEqual(['openid', 'profile']);
  });
});
