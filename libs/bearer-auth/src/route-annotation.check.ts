import { Injectable, type OnApplicationBootstrap, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { PUBLIC_ROUTE_KEY, REQUIRED_SCOPES_KEY } from './metadata-keys';

/**
 * Deny by default, checked at start: every route handler must say @RequireScopes(...) or
 * @PublicRoute(). The guard refuses unannotated routes anyway; this makes the mistake a
 * start-up failure instead of a 403 someone finds in production.
 */
@Injectable()
export class RouteAnnotationCheck implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const unannotated = unannotatedRoutes(this.discovery, this.scanner, this.reflector);
    if (unannotated.length > 0) {
      throw new Error(`Routes without @RequireScopes or @PublicRoute: ${unannotated.join(', ')}`);
    }
  }
}

export function unannotatedRoutes(discovery: DiscoveryService, scanner: MetadataScanner, reflector: Reflector): string[] {
  const found: string[] = [];
  for (const wrapper of discovery.getControllers()) {
    const instance = wrapper.instance as object | undefined;
    if (!instance) continue;
    const prototype = Object.getPrototypeOf(instance) as object;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = (prototype as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const targets = [handler, instance.constructor];
      const annotated =
        reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE_KEY, targets) ||
        reflector.getAllAndOverride<string[]>(REQUIRED_SCOPES_KEY, targets) !== undefined;
      if (!annotated) {
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number] ?? '?';
        found.push(`${method} ${instance.constructor.name}.${name}`);
      }
    }
  }
  return found;
}
