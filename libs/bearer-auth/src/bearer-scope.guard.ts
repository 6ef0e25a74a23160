import { type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import {
  AccessDeniedError,
  InsufficientScopeError,
  InvalidRequestError,
  OAuthError,
  toOAuthError,
} from '@platform/oauth-errors';
import { BEARER_STRATEGY } from './bearer.strategy';
import { MissingTokenError, withChallenge } from './challenges';
import { ANONYMOUS_ACCESS_KEY, PUBLIC_ROUTE_KEY, REQUIRED_SCOPES_KEY } from './metadata-keys';
import { BEARER_AUTH_OPTIONS, type ResolvedBearerAuthOptions } from './options';
import { ANONYMOUS, type AuthPrincipal, type TokenPrincipal } from './principal';

interface GuardedRequest {
  headers: Record<string, string | string[] | undefined>;
  query?: unknown;
  principal?: AuthPrincipal;
  user?: unknown;
}

type RouteTargets = [ReturnType<ExecutionContext['getHandler']>, ReturnType<ExecutionContext['getClass']>];

const BEARER_HEADER = /^Bearer\s/i;

/**
 * The one global guard. Deny by default: a route must say @PublicRoute() or
 * @RequireScopes(...). Without a token the caller is anonymous (served only where the route
 * says @AllowAnonymous(), challenged otherwise); with a token, it must be valid, for this
 * resource, and carry every required scope.
 */
@Injectable()
export class BearerScopeGuard extends AuthGuard(BEARER_STRATEGY) {
  constructor(
    private readonly reflector: Reflector,
    @Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets: RouteTargets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE_KEY, targets)) return true;
    const required = this.reflector.getAllAndOverride<string[]>(REQUIRED_SCOPES_KEY, targets);
    if (!required) {
      throw new AccessDeniedError('This route is not available', 'route has neither @RequireScopes nor @PublicRoute');
    }
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    try {
      request.principal = await this.authenticate(context, request, required, targets);
    } catch (error) {
      throw withChallenge(toOAuthError(error), required, this.options.resourceMetadataUrl);
    }
    return true;
  }

  private async authenticate(
    context: ExecutionContext,
    request: GuardedRequest,
    required: readonly string[],
    targets: RouteTargets,
  ): Promise<AuthPrincipal> {
    const authorization = request.headers['authorization'];
    if (hasQueryToken(request.query)) {
      // Only the header method is supported (bearer_methods_supported: ["header"]).
      throw new InvalidRequestError('Send the access token in the Authorization header, not in the URL');
    }
    if (authorization === undefined) {
      if (this.reflector.getAllAndOverride<boolean>(ANONYMOUS_ACCESS_KEY, targets)) return ANONYMOUS;
      throw new MissingTokenError(`This operation needs an access token with scope ${required.join(' ')}`);
    }
    if (typeof authorization !== 'string' || !BEARER_HEADER.test(authorization)) {
      throw new MissingTokenError('Only Bearer access tokens are accepted');
    }
    await super.canActivate(context);
    const principal = request.user as TokenPrincipal;
    const missing = required.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) throw new InsufficientScopeError(required);
    return principal;
  }

  /** Passport's verdict: the strategy's own errors pass through; anything else is invalid_token. */
  override handleRequest<T>(error: unknown, user: T): T {
    if (error instanceof OAuthError) throw error;
    if (error) throw toOAuthError(error);
    // The strategy either returns a principal or throws; no user means passport-http-bearer
    // found the header malformed (RFC 6750 §3.1: invalid_request, 400).
    if (!user) throw new InvalidRequestError('The Authorization header must be "Bearer <token>"');
    return user;
  }
}

function hasQueryToken(query: unknown): boolean {
  return typeof query === 'object' && query !== null && 'access_token' in query;
}
