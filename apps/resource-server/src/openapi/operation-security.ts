import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import {
  DECORATORS,
  type OpenAPIObject,
  type OperationIdFactory,
  type OperationObject,
  type SecurityRequirementObject,
} from '@nestjs/swagger';
import { ANONYMOUS_ACCESS_KEY, PUBLIC_ROUTE_KEY, REQUIRED_SCOPES_KEY } from '@platform/bearer-auth';
import { OAUTH2_SCHEME } from './openapi-options';

/** What the bearer guard does for a route, read the way the guard reads it. */
export type RouteAuth =
  | { readonly kind: 'public' }
  | { readonly kind: 'scopes'; readonly scopes: readonly string[]; readonly anonymous: boolean }
  | { readonly kind: 'unannotated' };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Maps the operations @nestjs/swagger generates back to their handlers, to give each one the
 * security requirement of its @RequireScopes / @AllowAnonymous / @PublicRoute metadata.
 *
 * Swagger does the route-to-path work itself (global prefix, versions, aliases); recomputing
 * paths from Nest's metadata would duplicate that logic and drift. Instead, the operationId
 * factory handed to swagger records which controller method each id came from (swagger
 * calls it with the controller's class name and the method name), and every controller
 * method is indexed here under the same `Class.method` key from Nest's own container.
 * Operations whose id was set with @ApiOperation({ operationId }) are indexed by that id.
 * Two controllers with the same class name whose methods differ in security would make the
 * key ambiguous: that stops the build instead of guessing. Nothing is written to the
 * controllers' metadata.
 */
export class OperationAuthIndex {
  private readonly byMethod = new Map<string, RouteAuth | 'ambiguous'>();
  private readonly byExplicitId = new Map<string, RouteAuth | 'ambiguous'>();
  private readonly recordedIds = new Map<string, string>();

  constructor(modules: ModulesContainer, reflector: Reflector = new Reflector()) {
    const scanner = new MetadataScanner();
    for (const wrapper of new DiscoveryService(modules).getControllers()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as (...args: unknown[]) => unknown;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const auth = routeAuth(reflector, handler, controller);
        remember(this.byMethod, `${controller.name}.${name}`, auth);
        const explicitId = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) as { operationId?: string } | undefined)
          ?.operationId;
        if (explicitId) remember(this.byExplicitId, explicitId, auth);
      }
    }
  }

  /** Swagger's default operation ids, recording the controller method behind each. */
  readonly operationIdFactory: OperationIdFactory = (controllerKey, methodKey, version) => {
    const id = version ? `${controllerKey}_${methodKey}_${version}` : `${controllerKey}_${methodKey}`;
    // An alias route (several paths on one handler) comes as `method[1]`.
    this.recordedIds.set(id, `${controllerKey}.${methodKey.replace(/\[\d+\]$/, '')}`);
    return id;
  };

  resolve(operationId: string | undefined, where: string): RouteAuth {
    const recorded = operationId === undefined ? undefined : this.recordedIds.get(operationId);
    const auth =
      (operationId === undefined ? undefined : this.byExplicitId.get(operationId)) ??
      (recorded === undefined ? undefined : this.byMethod.get(recorded));
    if (auth === undefined) throw new Error(`OpenAPI: cannot find the handler of ${where} (operationId ${operationId})`);
    if (auth === 'ambiguous') {
      throw new Error(`OpenAPI: ${where} maps to several controller methods with different security (operationId ${operationId}); rename one controller`);
    }
    return auth;
  }
}

/** The same reading as BearerScopeGuard: method metadata overrides the class's. */
export function routeAuth(reflector: Reflector, handler: (...args: unknown[]) => unknown, controller: object): RouteAuth {
  const targets = [handler, controller] as Parameters<Reflector['getAllAndOverride']>[1];
  if (reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE_KEY, targets)) return { kind: 'public' };
  const scopes = reflector.getAllAndOverride<string[] | undefined>(REQUIRED_SCOPES_KEY, targets);
  if (!scopes) return { kind: 'unannotated' };
  return { kind: 'scopes', scopes: [...scopes], anonymous: Boolean(reflector.getAllAndOverride<boolean>(ANONYMOUS_ACCESS_KEY, targets)) };
}

/**
 * OpenAPI 3.0.3, Operation Object `security`: "To remove a top-level security declaration, an
 * empty array can be used", and "To make security optional, an empty security requirement
 * ({}) can be included in the array". So: a public route has
 * `[]`, a scoped route `[{ oauth2: [its scopes] }]`, and one that also serves anonymous callers
 * (its public view) adds the `{}` alternative.
 */
export function securityFor(auth: RouteAuth, where: string): SecurityRequirementObject[] {
  switch (auth.kind) {
    case 'public':
      return [];
    case 'scopes':
      return [{ [OAUTH2_SCHEME]: [...auth.scopes] }, ...(auth.anonymous ? [{}] : [])];
    case 'unannotated':
      // The guard refuses these (deny by default) and RouteAnnotationCheck stops the start.
      throw new Error(`OpenAPI: ${where} has neither @RequireScopes nor @PublicRoute`);
  }
}

/** RFC 9110 §9.2.1 safe methods: a token's holder reads without a request limit. */
const SAFE_METHODS = new Set(['get', 'head', 'options']);

/**
 * Sets `security` on every operation swagger generated, the 401/403 answers of protected ones,
 * and the 429 of those the request limits count (rate-limits/resource-limits.ts): writes (per
 * user), and operations that serve callers without a token (per address).
 */
export function applyOperationSecurity(document: OpenAPIObject, index: OperationAuthIndex): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation: OperationObject | undefined = item[method];
      if (!operation) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const auth = index.resolve(operation.operationId, where);
      operation.security = securityFor(auth, where);
      if (auth.kind === 'scopes') {
        operation.responses['401'] ??= { $ref: '#/components/responses/Unauthorized' };
        operation.responses['403'] ??= { $ref: '#/components/responses/InsufficientScope' };
        if (auth.anonymous || !SAFE_METHODS.has(method)) operation.responses['429'] ??= { $ref: '#/components/responses/TooManyRequests' };
      }
    }
  }
}

function remember(map: Map<string, RouteAuth | 'ambiguous'>, key: string, auth: RouteAuth): void {
  const existing = map.get(key);
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(auth)) map.set(key, 'ambiguous');
  else map.set(key, auth);
}
