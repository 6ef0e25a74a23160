import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Scope } from '@platform/scopes';
import { ANONYMOUS_ACCESS_KEY, PUBLIC_ROUTE_KEY, REQUIRED_SCOPES_KEY } from './metadata-keys';
import { ANONYMOUS, type AuthPrincipal } from './principal';

/**
 * The scopes a token needs for this route. Without a token the caller gets 401 and a
 * challenge naming these scopes, unless the route also has @AllowAnonymous().
 */
export const RequireScopes = (...scopes: [Scope, ...Scope[]]) => SetMetadata(REQUIRED_SCOPES_KEY, scopes);

/**
 * Callers without a token are served as the anonymous principal (the public view). A caller
 * that does send a token still needs the route's scopes: an invalid token is 401, a token
 * without the scope 403.
 */
export const AllowAnonymous = () => SetMetadata(ANONYMOUS_ACCESS_KEY, true);

/** Routes with no bearer processing at all: documents, metadata, health. */
export const PublicRoute = () => applyDecorators(SetMetadata(PUBLIC_ROUTE_KEY, true));

/** The caller, as the guard established it. */
export const Principal = createParamDecorator((_data: unknown, context: ExecutionContext): AuthPrincipal => {
  const request = context.switchToHttp().getRequest<{ principal?: AuthPrincipal }>();
  return request.principal ?? ANONYMOUS;
});
