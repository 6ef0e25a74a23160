import { type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { AccessDeniedError, InsufficientScopeError, InvalidRequestError, type OAuthError, toOAuthError } from '@platform/oauth-errors';
import { hasAllScopes } from '@platform/scopes';
import { MALFORMED_BEARER_HEADER, MissingTokenError, type TokenScheme, UNSUPPORTED_SCHEME } from './bearer-header';
import { BEARER_STRATEGY } from './bearer.strategy';
import { CALLER_ADMISSION, type CallerAdmission } from './caller-admission';
import { type ChallengeContext, challengeOf, withChallenge } from './challenges';
import { DPOP_STRATEGY } from './dpop.strategy';
import { ANONYMOUS_ACCESS_KEY, PUBLIC_ROUTE_KEY, REQUIRED_SCOPES_KEY } from './metadata-keys';
import { BEARER_AUTH_OPTIONS, type ResolvedBearerAuthOptions } from './options';
import { presentedSchemeOf } from './presented-scheme';
import { ANONYMOUS, type AuthPrincipal, type TokenPrincipal } from './principal';

interface GuardedRequest {
  method: string;
  ip: string;
  headers: Record<string, string | string[] | undefined>;
  query?: unknown;
  body?: unknown;
  principal?: AuthPrincipal;
  user?: unknown;
}

/**
 * What a route's decorators say, read once per route (the metadata never changes after
 * start), with the answers that depend only on them: the challenge of a missing token and
 * the insufficient_scope refusal's description and challenge.
 */
interface RouteRule {
  readonly isPublic: boolean;
  /** undefined: neither @RequireScopes nor @PublicRoute, so the route is refused. */
  readonly required?: readonly string[];
  readonly anonymous: boolean;
  readonly missingTokenDescription: string;
  readonly missingTokenChallenge?: string;
  readonly insufficientScopeDescription: string;
  /** By the scheme the token came with: a 403 challenges in that scheme. */
  readonly insufficientScopeChallenges?: Readonly<Record<TokenScheme, string | undefined>>;
}

type Handler = ReturnType<ExecutionContext['getHandler']>;
type ControllerClass = ReturnType<ExecutionContext['getClass']>;

/**
 * The one global guard. Deny by default: a route must say @PublicRoute() or
 * @RequireScopes(...). Without a token the caller is anonymous (served only where the route
 * says @AllowAnonymous(), challenged otherwise); with a token, passport tries DpopStrategy
 * (`Authorization: DPoP`, with its proof) then BearerStrategy (passport-http-bearer), each
 * validating the token for this resource, and it must carry every required scope.
 */
@Injectable()
export class BearerScopeGuard extends AuthGuard([DPOP_STRATEGY, BEARER_STRATEGY]) {
  private readonly rules = new WeakMap<ControllerClass, Map<Handler, RouteRule>>();
  private readonly challengeContext: ChallengeContext;

  constructor(
    private readonly reflector: Reflector,
    @Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions,
    @Optional() @Inject(CALLER_ADMISSION) private readonly admission?: CallerAdmission,
  ) {
    super();
    this.challengeContext = { resourceMetadataUrl: options.resourceMetadataUrl, dpopAlgorithms: options.dpop.algorithms };
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.ruleOf(context.getClass(), context.getHandler());
    if (rule.isPublic) return true;
    const required = rule.required;
    if (!required) {
      throw new AccessDeniedError('This route is not available', 'route has neither @RequireScopes nor @PublicRoute');
    }
    const request = context.switchToHttp().getRequest<GuardedRequest>();
    let principal: AuthPrincipal;
    try {
      principal = await this.callerOf(context, request, rule, required);
    } catch (error) {
      throw this.challenge(error, rule, required, presentedSchemeOf(request));
    }
    request.principal = principal;
    // Outside the try: a refusal of the admission (the application's rate limits) is not a bearer challenge.
    await this.admission?.admit(request, principal);
    return true;
  }

  /** The anonymous caller, or the holder of a valid token with every scope the route requires. */
  private async callerOf(context: ExecutionContext, request: GuardedRequest, rule: RouteRule, required: readonly string[]): Promise<AuthPrincipal> {
    // Only the header method is supported (bearer_methods_supported: ["header"]): passport-http-bearer
    // would also take an access_token from the query (RFC 6750 §2.3) or the body (§2.2), even
    // beside an Authorization header of another scheme.
    if (hasTokenParameter(request.query)) {
      throw new InvalidRequestError('Send the access token in the Authorization header, not in the URL');
    }
    if (hasTokenParameter(request.body)) {
      throw new InvalidRequestError('Send the access token in the Authorization header, not in the body');
    }
    if (request.headers['authorization'] === undefined) {
      if (rule.anonymous) return ANONYMOUS;
      throw new MissingTokenError(rule.missingTokenDescription);
    }
    await super.canActivate(context);
    const principal = request.user as TokenPrincipal;
    // RFC 6750 §3.1: a token without every required scope is insufficient_scope (403).
    if (!hasAllScopes(principal.scopes, required)) throw new InsufficientScopeError(required, rule.insufficientScopeDescription);
    return principal;
  }

  /** withChallenge, with the route's fixed challenges built once. */
  private challenge(error: unknown, rule: RouteRule, required: readonly string[], scheme: TokenScheme | undefined): OAuthError {
    if (error instanceof MissingTokenError && rule.missingTokenChallenge !== undefined) {
      return error.withHeader('www-authenticate', rule.missingTokenChallenge);
    }
    const insufficientScopeChallenge = rule.insufficientScopeChallenges?.[scheme ?? 'Bearer'];
    if (error instanceof InsufficientScopeError && error.requiredScopes === required && insufficientScopeChallenge !== undefined) {
      return error.withHeader('www-authenticate', insufficientScopeChallenge);
    }
    return withChallenge(toOAuthError(error), required, this.challengeContext, scheme);
  }

  /**
   * Passport's verdict: the strategies' own errors pass through. No user: neither found a token
   * (another scheme, RFC 6750 §3.1: answered like no credentials) or passport-http-bearer said
   * 400 (one status per strategy tried): a header that is not `Bearer <token>` or a token sent
   * twice (invalid_request).
   */
  override handleRequest<T>(error: unknown, user: T, _info?: unknown, _context?: ExecutionContext, status?: number | (number | undefined)[]): T {
    if (error) throw toOAuthError(error);
    if (user) return user;
    if ((Array.isArray(status) ? status : [status]).includes(400)) throw new InvalidRequestError(MALFORMED_BEARER_HEADER);
    throw new MissingTokenError(UNSUPPORTED_SCHEME);
  }

  private ruleOf(controller: ControllerClass, handler: Handler): RouteRule {
    let byHandler = this.rules.get(controller);
    if (!byHandler) {
      byHandler = new Map();
      this.rules.set(controller, byHandler);
    }
    let rule = byHandler.get(handler);
    if (!rule) {
      rule = this.readRule(controller, handler);
      byHandler.set(handler, rule);
    }
    return rule;
  }

  private readRule(controller: ControllerClass, handler: Handler): RouteRule {
    const targets = [handler, controller];
    const scopes = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_SCOPES_KEY, targets);
    const required = scopes ? Object.freeze([...scopes]) : undefined;
    const context = this.challengeContext;
    const insufficient = new InsufficientScopeError(required ?? []);
    return Object.freeze({
      isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE_KEY, targets) === true,
      required,
      anonymous: this.reflector.getAllAndOverride<boolean>(ANONYMOUS_ACCESS_KEY, targets) === true,
      missingTokenDescription: `This operation needs an access token with scope ${(required ?? []).join(' ')}`,
      missingTokenChallenge: required && challengeOf(new MissingTokenError(''), required, context),
      insufficientScopeDescription: insufficient.description,
      insufficientScopeChallenges: required && {
        Bearer: challengeOf(insufficient, required, context, 'Bearer'),
        DPoP: challengeOf(insufficient, required, context, 'DPoP'),
      },
    });
  }
}

function hasTokenParameter(parameters: unknown): boolean {
  return typeof parameters === 'object' && parameters !== null && 'access_token' in parameters;
}
