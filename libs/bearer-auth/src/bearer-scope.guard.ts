import { type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import {
  AccessDeniedError,
  InsufficientScopeError,
  InvalidRequestError,
  OAuthError,
  toOAuthError,
} from '@platform/oauth-errors';
import { hasAllScopes } from '@platform/scopes';
import { BEARER_STRATEGY } from './bearer.strategy';
import { CALLER_ADMISSION, type CallerAdmission } from './caller-admission';
import { challengeOf, MissingTokenError, withChallenge } from './challenges';
import { ANONYMOUS_ACCESS_KEY, PUBLIC_ROUTE_KEY, REQUIRED_SCOPES_KEY } from './metadata-keys';
import { BEARER_AUTH_OPTIONS, type ResolvedBearerAuthOptions } from './options';
import { ANONYMOUS, type AuthPrincipal, type TokenPrincipal } from './principal';
import { TokenValidator } from './token-validator';

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
  readonly insufficientScopeChallenge?: string;
}

type Handler = ReturnType<ExecutionContext['getHandler']>;
type ControllerClass = ReturnType<ExecutionContext['getClass']>;

const BEARER_HEADER = /^Bearer\s/i;
const SCHEME_LENGTH = 'Bearer'.length;

/**
 * The one global guard. Deny by default: a route must say @PublicRoute() or
 * @RequireScopes(...). Without a token the caller is anonymous (served only where the route
 * says @AllowAnonymous(), challenged otherwise); with a token, it must be valid, for this
 * resource, and carry every required scope.
 *
 * passport-http-bearer is the validation path. A token whose answer the in-process cache
 * already holds (and may trust) is answered synchronously here, before passport, with the
 * same token passport would extract and the same checks; everything else goes through
 * passport as before.
 */
@Injectable()
export class BearerScopeGuard extends AuthGuard(BEARER_STRATEGY) {
  private readonly rules = new WeakMap<ControllerClass, Map<Handler, RouteRule>>();

  constructor(
    private readonly reflector: Reflector,
    @Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions,
    private readonly validator: TokenValidator,
    @Optional() @Inject(CALLER_ADMISSION) private readonly admission?: CallerAdmission,
  ) {
    super();
  }

  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const rule = this.ruleOf(context.getClass(), context.getHandler());
    if (rule.isPublic) return true;
    const required = rule.required;
    if (!required) {
      throw new AccessDeniedError('This route is not available', 'route has neither @RequireScopes nor @PublicRoute');
    }
    // The HTTP request (switchToHttp() would allocate three closures per call).
    const request = context.getArgByIndex<GuardedRequest>(0);
    let outcome: AuthPrincipal | OAuthError | undefined;
    try {
      outcome = this.withoutIo(request, rule, required);
    } catch (error) {
      throw this.challenge(error, rule, required);
    }
    if (outcome === undefined) return this.throughPassport(context, request, rule, required);
    // Thrown once, here: Nest refuses a request only on a guard's exception.
    if (outcome instanceof OAuthError) throw this.challenge(outcome, rule, required);
    request.principal = outcome;
    return this.admit(request, outcome);
  }

  /** The caller is known: the application's admission (its request rate limits) may still refuse it. */
  private admit(request: GuardedRequest, principal: AuthPrincipal): true | Promise<true> {
    const admitted = this.admission?.admit(request, principal);
    return admitted instanceof Promise ? admitted.then(() => true) : true;
  }

  /**
   * Everything that needs no I/O: the anonymous caller, the refusals of a missing or foreign
   * credential, and a token whose answer is in trusted memory. Its own refusals are returned
   * (canActivate throws them); the validator's (an inactive or foreign held token) are thrown.
   * `undefined`: passport decides.
   */
  private withoutIo(request: GuardedRequest, rule: RouteRule, required: readonly string[]): AuthPrincipal | OAuthError | undefined {
    if (hasQueryToken(request.query)) {
      // Only the header method is supported (bearer_methods_supported: ["header"]).
      return new InvalidRequestError('Send the access token in the Authorization header, not in the URL');
    }
    const authorization = request.headers['authorization'];
    if (authorization === undefined) {
      if (rule.anonymous) return ANONYMOUS;
      return new MissingTokenError(rule.missingTokenDescription);
    }
    if (typeof authorization !== 'string' || !BEARER_HEADER.test(authorization)) {
      return new MissingTokenError('Only Bearer access tokens are accepted');
    }
    const token = passportToken(authorization, request.body);
    if (token === undefined) return undefined;
    const principal = this.validator.validateCached(token);
    if (principal === undefined) return undefined;
    request.user = principal;
    return scopeRefusal(principal, rule, required) ?? principal;
  }

  private async throughPassport(
    context: ExecutionContext,
    request: GuardedRequest,
    rule: RouteRule,
    required: readonly string[],
  ): Promise<boolean> {
    let principal: TokenPrincipal;
    try {
      await super.canActivate(context);
      principal = request.user as TokenPrincipal;
      const refusal = scopeRefusal(principal, rule, required);
      if (refusal) throw refusal;
      request.principal = principal;
    } catch (error) {
      throw this.challenge(error, rule, required);
    }
    // Outside the try: a refusal of the admission is not a bearer challenge.
    return this.admit(request, principal);
  }

  /** withChallenge, with the route's two fixed challenges built once. */
  private challenge(error: unknown, rule: RouteRule, required: readonly string[]): OAuthError {
    if (error instanceof MissingTokenError && rule.missingTokenChallenge !== undefined) {
      return error.withHeader('www-authenticate', rule.missingTokenChallenge);
    }
    if (error instanceof InsufficientScopeError && error.requiredScopes === required && rule.insufficientScopeChallenge !== undefined) {
      return error.withHeader('www-authenticate', rule.insufficientScopeChallenge);
    }
    return withChallenge(toOAuthError(error), required, this.options.resourceMetadataUrl);
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
    const url = this.options.resourceMetadataUrl;
    const insufficient = new InsufficientScopeError(required ?? []);
    return Object.freeze({
      isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE_KEY, targets) === true,
      required,
      anonymous: this.reflector.getAllAndOverride<boolean>(ANONYMOUS_ACCESS_KEY, targets) === true,
      missingTokenDescription: `This operation needs an access token with scope ${(required ?? []).join(' ')}`,
      missingTokenChallenge: required && challengeOf(new MissingTokenError(''), required, url),
      insufficientScopeDescription: insufficient.description,
      insufficientScopeChallenge: required && challengeOf(insufficient, required, url),
    });
  }
}

/** RFC 6750 §3.1: a token without every required scope is insufficient_scope (403). */
function scopeRefusal(principal: TokenPrincipal, rule: RouteRule, required: readonly string[]): InsufficientScopeError | undefined {
  return hasAllScopes(principal.scopes, required) ? undefined : new InsufficientScopeError(required, rule.insufficientScopeDescription);
}

/**
 * The token passport-http-bearer would hand to the strategy for this header, or undefined
 * where passport itself must answer: anything but exactly `Bearer<SP><token>` (it splits on
 * single spaces and refuses other shapes), or an access_token in the body as well.
 */
function passportToken(authorization: string, body: unknown): string | undefined {
  if (authorization.charCodeAt(SCHEME_LENGTH) !== 0x20 || authorization.indexOf(' ', SCHEME_LENGTH + 1) !== -1) return undefined;
  if (authorization.length === SCHEME_LENGTH + 1) return undefined;
  if (typeof body === 'object' && body !== null && 'access_token' in body) return undefined;
  return authorization.slice(SCHEME_LENGTH + 1);
}

function hasQueryToken(query: unknown): boolean {
  return typeof query === 'object' && query !== null && 'access_token' in query;
}
