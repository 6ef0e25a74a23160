import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * @fastify/cors on the service's Fastify instance itself. Not Nest's app.enableCors(): that
 * runs the plugin's hook from a hook of its own and then copies the CORS headers onto the raw
 * response of every request (so that responses Nest middleware ends carry them). These services
 * have no Nest middleware, and a header set on the raw response before Fastify's writeHead makes
 * Node merge and validate every header one by one. Call it before the service's own
 * request hooks (rate limits): a refusal they answer carries the CORS headers, so a browser
 * client can read it.
 */
export async function registerCors(app: NestFastifyApplication, options: FastifyCorsOptions): Promise<void> {
  await app.getHttpAdapter().getInstance().register(fastifyCors, options);
}
