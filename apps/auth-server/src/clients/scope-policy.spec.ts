import { InvalidScopeError } from '@platform/oauth-errors';
import { type ClientScopePolicy, LEAST_PRIVILEGE_DEFAULT_SCOPES, resolveRequestedScopes, selfRegisteredScopePolicy } from './scope-policy';

const registeredForStudents = selfRegisteredScopePolicy('openid students:read');
const registeredNothing = selfRegisteredScopePolicy('');
const staffIntegration: ClientScopePolicy = { defaultScopes: ['courses:read'], ceiling: ['courses:read', 'courses:write'] };

describe('resolveRequestedScopes (RFC 6749 §3.3)', () => {
  it.each<[string, string | undefined, ClientScopePolicy, string[]]>([
    ['a requested scope is asked as requested', 'students:read openid', registeredForStudents, ['openid', 'students:read']],
    ['step-up: beyond the registered scope is asked too (consent grants)', 'openid students:read orders:read', registeredForStudents, ['openid', 'students:read', 'orders:read']],
    ['write scopes beyond the registered ones as well', 'courses:write', registeredForStudents, ['courses:write']],
    ['no scope: the registered scope is the default', undefined, registeredForStudents, ['openid', 'students:read']],
    ['an empty scope counts as omitted', '', registeredForStudents, ['openid', 'students:read']],
    ['no scope, none registered: the least-privilege default', undefined, registeredNothing, [...LEAST_PRIVILEGE_DEFAULT_SCOPES]],
    ['offline_access is accepted (OpenID Connect Core §11)', 'openid offline_access', registeredNothing, ['openid', 'offline_access']],
    ['within a ceiling', 'courses:write', staffIntegration, ['courses:write']],
    ['no scope under a ceiling: the default', undefined, staffIntegration, ['courses:read']],
  ])('%s', (_name, requested, policy, expected) => {
    expect(resolveRequestedScopes(requested, policy)).toEqual(expected);
  });

  it.each<[string, string | undefined, ClientScopePolicy, string]>([
    ['an unknown scope', 'openid admin:everything', registeredForStudents, 'Unknown scope: admin:everything'],
    ['a scope in the wrong case', 'OpenID', registeredNothing, 'Unknown scope: OpenID'],
    ['beyond a ceiling', 'courses:read students:read', staffIntegration, 'This client may not be granted scope: students:read'],
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
