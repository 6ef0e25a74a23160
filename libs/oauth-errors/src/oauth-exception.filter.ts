import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toOAuthError } from './to-oauth-error';

const logger = new Logger('OAuthError');

/**
 * The one place where errors become responses: an RFC 6749 §5.2 JSON body with the
 * RFC's status, `Cache-Control: no-store`, and whatever headers the error carries.
 * Server errors are logged with their internal detail; the body never has a stack.
 */
export function sendOAuthError(reply: FastifyReply, exception: unknown): void {
  const error = toOAuthError(exception);
  if (error.status >= 500) {
    logger.error(
      `${error.error}: ${error.internalDetail ?? error.description}`,
      exception instanceof Error && error.status === 500 ? exception.stack : undefined,
    );
  } else if (error.internalDetail) {
    logger.debug(`${error.error}: ${error.internalDetail}`);
  }
  if (reply.sent) return;
  void reply
    .status(error.status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...error.headers })
    .type('application/json; charset=utf-8')
    .send(error.toBody());
}

@Catch()
export class OAuthExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    sendOAuthError(host.switchToHttp().getResponse<FastifyReply>(), exception);
  }
}
