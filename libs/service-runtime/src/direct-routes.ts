import { RequestMethod, type Type } from '@nestjs/common';
import {
  GUARDS_METADATA,
  HEADERS_METADATA,
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  PIPES_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { sendOAuthError } from '@platform/oauth-errors';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';

/** A controller method to serve from its own Fastify route: see serveDirectly. */
export interface DirectRoute {
  controller: Type<unknown>;
  method: string;
}

/** A controller's method, checked by the compiler, for serveDirectly. */
export function directRoute<T>(controller: Type<T>, method: keyof T & string): DirectRoute {
  return { controller, method };
}

type ArgumentOf = (request: FastifyRequest) => unknown;

/**
 * Serves controller methods straight from their Fastify routes, without Nest's per-request
 * pipeline (the execution context, the parameter pipes, the interceptor chain, the response
 * controller and the exception zone: a chain of promises on every request). For the
 * machine-to-machine OAuth endpoints at the top of the bench (token, introspection,
 * revocation): −9 µs of CPU per introspection (~106 → ~91 µs) and −11 µs per refresh,
 * measured side by side over 12 interleaved rounds (issue 12). Call it before app.init().
 *
 * The controller stays the one definition of the route: Nest registers it as usual (the
 * OpenAPI description comes from its decorators), and this replaces the handler Nest gives
 * Fastify, keeping the route's hooks (rate limits, CORS, logs). The method is called with what
 * its decorators ask for, its answer sent with its @HttpCode and @Header values, and an error
 * goes to sendOAuthError, the function the exception filter calls: the answers are the same,
 * byte for byte (direct-routes.spec.ts). Only @Body(), @Headers(name) and @Req() parameters
 * are supported, and no guard, interceptor or pipe on the route (the service refuses to start
 * otherwise), since those run in the pipeline this skips; nor may the application have global
 * ones (the auth server has none).
 */
export function serveDirectly(app: NestFastifyApplication, routes: readonly DirectRoute[]): void {
  const handlers = new Map<string, RouteHandlerMethod>();
  for (const route of routes) {
    const { key, handler } = directHandler(app.get(route.controller, { strict: false }) as object, route);
    handlers.set(key, handler);
  }
  const replaced = new Set<string>();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (options) => {
    const key = routeKey(String(options.method), options.url);
    const handler = handlers.get(key);
    if (handler === undefined) return;
    options.handler = handler;
    replaced.add(key);
  });
  fastify.addHook('onReady', (done) => {
    const missing = [...handlers.keys()].filter((key) => !replaced.has(key));
    done(missing.length ? new Error(`serveDirectly: no route was registered for ${missing.join(', ')}`) : undefined);
  });
}

function directHandler(instance: object, { controller, method }: DirectRoute): { key: string; handler: RouteHandlerMethod } {
  const target = (controller.prototype as Record<string, unknown>)[method] as ((...args: unknown[]) => unknown) | undefined;
  const where = `${controller.name}.${method}`;
  if (typeof target !== 'function') throw new Error(`serveDirectly: ${where} is not a method`);
  for (const [name, key] of [['guard', GUARDS_METADATA], ['interceptor', INTERCEPTORS_METADATA], ['pipe', PIPES_METADATA]] as const) {
    const attached = [Reflect.getMetadata(key, controller), Reflect.getMetadata(key, target)].flat().filter(Boolean);
    if (attached.length) throw new Error(`serveDirectly: ${where} has a ${name}, which only Nest's pipeline runs`);
  }
  const requestMethod = Reflect.getMetadata(METHOD_METADATA, target) as RequestMethod;
  const path = joinPath(Reflect.getMetadata(PATH_METADATA, controller) as string | undefined, Reflect.getMetadata(PATH_METADATA, target) as string);
  // As Nest: POST answers 201 unless @HttpCode says otherwise.
  const status = (Reflect.getMetadata(HTTP_CODE_METADATA, target) as number | undefined) ?? (requestMethod === RequestMethod.POST ? 201 : 200);
  const headers = Object.fromEntries(
    ((Reflect.getMetadata(HEADERS_METADATA, target) as { name: string; value: string }[] | undefined) ?? []).map(({ name, value }) => [name.toLowerCase(), value]),
  );
  const argumentsOf = argumentReaders(Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}, where);
  if (target.length > argumentsOf.length) throw new Error(`serveDirectly: every parameter of ${where} needs a decorator`);
  const call = target.bind(instance);

  const send = (reply: FastifyReply, value: unknown): void => {
    void reply.status(status).send(value);
  };
  const handler: RouteHandlerMethod = (request, reply) => {
    // As Nest: the route's headers before the method runs (an error's answer keeps them too).
    reply.headers(headers);
    let answer: unknown;
    try {
      answer = call(...argumentsOf.map((argumentOf) => argumentOf(request)));
    } catch (error) {
      sendOAuthError(reply, error);
      return;
    }
    if (answer instanceof Promise) answer.then((value) => send(reply, value), (error: unknown) => sendOAuthError(reply, error));
    else send(reply, answer);
  };
  return { key: routeKey(RequestMethod[requestMethod], path), handler };
}

/** How the method's parameters are read from the request, in order (Nest's ROUTE_ARGS_METADATA). */
function argumentReaders(metadata: Record<string, { index: number; data?: unknown; pipes?: unknown[] }>, where: string): ArgumentOf[] {
  const readers: ArgumentOf[] = [];
  for (const [key, { index, data, pipes }] of Object.entries(metadata)) {
    if (pipes?.length) throw new Error(`serveDirectly: parameter ${index} of ${where} has a pipe`);
    const type = Number(key.split(':')[0]);
    if (type === RouteParamtypes.BODY && data === undefined) readers[index] = (request) => request.body;
    else if (type === RouteParamtypes.HEADERS && typeof data === 'string') {
      const name = data.toLowerCase();
      readers[index] = (request) => request.headers[name];
    } else if (type === RouteParamtypes.REQUEST) readers[index] = (request) => request;
    else throw new Error(`serveDirectly: parameter ${index} of ${where} is not @Body(), @Headers(name) or @Req()`);
  }
  if (readers.length !== Object.keys(metadata).length || readers.some((reader) => reader === undefined)) {
    throw new Error(`serveDirectly: every parameter of ${where} needs a decorator`);
  }
  return readers;
}

function joinPath(prefix: string | undefined, path: string): string {
  const joined = `/${[prefix, path].filter(Boolean).join('/')}`.replace(/\/+/g, '/');
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

function routeKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url}`;
}
