import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { outcomeOfError } from './authorize-outcome';
import { writeAuthorizeResponse } from './authorize-response';

/**
 * The authorization endpoint's errors (and the connected-apps page's): outcomeOfError()
 * decides between a redirect to the client and an HTML page (never JSON, a stack trace or a
 * redirect to an unverified URI), and the endpoint's one writer sends it.
 */
@Catch()
export class AuthorizeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Authorize');

  constructor(@Inject(AUTH_CONFIG) private readonly config: AuthConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { error, outcome } = outcomeOfError(exception, this.config.issuer);
    const message = `${error.error}: ${error.internalDetail ?? error.description}`;
    if (outcome.kind === 'error-page' && error.status >= 500) {
      this.logger.error(message, exception instanceof Error ? exception.stack : undefined);
    } else {
      this.logger.debug(message);
    }
    if (!reply.sent) writeAuthorizeResponse(reply, outcome);
  }
}
