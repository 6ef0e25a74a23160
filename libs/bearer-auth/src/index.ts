export { BearerAuthModule } from './bearer-auth.module';
export type { BearerAuthOptions } from './options';
export type { BearerAuthMetrics, IntrospectionOutcome } from './metrics';
export { RequireScopes, AllowAnonymous, PublicRoute, Principal } from './decorators';
export { ANONYMOUS, isTokenPrincipal, type AuthPrincipal, type AnonymousPrincipal, type TokenPrincipal } from './principal';
export { REQUIRED_SCOPES_KEY, ANONYMOUS_ACCESS_KEY, PUBLIC_ROUTE_KEY } from './metadata-keys';
export { TokenValidator } from './token-validator';
export { unannotatedRoutes } from './route-annotation.check';
