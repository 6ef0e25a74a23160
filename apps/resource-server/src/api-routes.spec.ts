import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ANONYMOUS_ACCESS_KEY, PUBLIC_ROUTE_KEY, REQUIRED_SCOPES_KEY } from '@platform/bearer-auth';
import { BUSINESS_SCOPES } from '@platform/scopes';
import { API_MODULES } from './app.module';

interface Route {
  route: string;
  scopes: string[] | undefined;
  anonymous: boolean;
  isPublic: boolean;
}

function routesOf(modules: Type[]): Route[] {
  const routes: Route[] = [];
  for (const module of modules) {
    const controllers = (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, module) ?? []) as Type[];
    for (const controller of controllers) {
      const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name] as object;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (name === 'constructor' || path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        routes.push({
          route: `${method} /${[base, path].filter((part) => part && part !== '/').join('/')}`,
          scopes: Reflect.getMetadata(REQUIRED_SCOPES_KEY, handler) as string[] | undefined,
          anonymous: Reflect.getMetadata(ANONYMOUS_ACCESS_KEY, handler) === true,
          isPublic: Reflect.getMetadata(PUBLIC_ROUTE_KEY, handler) === true,
        });
      }
    }
  }
  return routes;
}

const routes = routesOf(API_MODULES);

describe('the API’s routes', () => {
  it('are all under /api/v1', () => {
    expect(routes.length).toBeGreaterThan(60);
    for (const { route } of routes) expect(route).toMatch(/^[A-Z]+ \/api\/v1\//);
  });

  it('each say which scopes they need, or that they are public (deny by default)', () => {
    const unannotated = routes.filter((route) => !route.isPublic && route.scopes === undefined).map((route) => route.route);
    expect(unannotated).toEqual([]);
  });

  it('guard every business scope of the catalogue somewhere', () => {
    const guarded = new Set(routes.flatMap((route) => route.scopes ?? []));
    expect(BUSINESS_SCOPES.filter((scope) => !guarded.has(scope))).toEqual([]);
  });

  it('use read scopes for reads and write scopes for changes', () => {
    for (const { route, scopes } of routes) {
      if (!scopes) continue;
      const kind = route.startsWith('GET ') ? ':read' : ':write';
      for (const scope of scopes) expect(`${route} ${scope}`).toMatch(new RegExp(`${kind}$`));
    }
  });

  it('let anonymous callers only read', () => {
    const anonymousWrites = routes.filter((route) => route.anonymous && !route.route.startsWith('GET ')).map((route) => route.route);
    expect(anonymousWrites).toEqual([]);
  });

  it('make only the file download public', () => {
    expect(routes.filter((route) => route.isPublic).map((route) => route.route)).toEqual(['GET /api/v1/storage/files/:fileId']);
  });
});
