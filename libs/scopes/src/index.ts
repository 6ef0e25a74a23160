export {
  SCOPES,
  SCOPE_GROUPS,
  ALL_SCOPES,
  OIDC_SCOPES,
  BUSINESS_SCOPES,
  type Scope,
  type ScopeGroup,
} from './catalogue';
export { isScope, parseScopeString, unknownScopes, formatScopes, hasAllScopes } from './scope-set';
