export {
  SCOPES,
  SCOPE_GROUPS,
  ALL_SCOPES,
  OIDC_SCOPES,
  BUSINESS_SCOPES,
  OFFLINE_ACCESS,
  PROTOCOL_SCOPES,
  AUTHORIZATION_SERVER_SCOPES,
  type Scope,
  type ProtocolScope,
  type ScopeGroup,
} from './catalogue';
export { isScope, isRequestableScope, scopeDefinition, includedScope, withIncludedScopes, parseScopeString, unknownScopes, formatScopes, hasAllScopes, scopesOutside } from './scope-set';
