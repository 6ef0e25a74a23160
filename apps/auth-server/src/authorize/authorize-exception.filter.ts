import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Logger } from '@nestjs/common';
import { toOAuthError } from '@platform/oauth-errors';
import type { FastifyReply } from 'fastify';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { sendHtml, sendRedirect } from '../pages/html-response';
import { renderErrorPage } from '../pages/pages';
import { AuthorizationRedirectError } from './errors';
import { errorResponseUrl } from './redirect';

/**
 * The authorization endpoint's errors. Once client_id and redirect_uri are validated, errors
 * go back to the client (RFC 6749 §4.1.2.1, with `iss` per RFC 9207); before that, and for
 * anything unexpected, the user gets an HTML page: never JSON, a stack trace or a redirect
 * to an unverified URI.
 */
@Catch()
export class AuthorizeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Authorize');

  constructor(@Inject(AUTH_CONFIG) private readonly config: AuthConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof AuthorizationRedirectError) {
      const { oauthError: error } = exception;
      this.logger.debug(`${error.error}: ${error.internalDetail ?? error.description}`);
      if (!reply.sent) {
        sendRedirect(reply, errorResponseUrl(exception.redirectUri, error, exception.state, this.config.issuer));
      }
      return;
    }

    const error = toOAuthError(exception);
    if (error.status >= 500) {
      this.logger.error(
        `${error.error}: ${error.internalDetail ?? error.description}`,
        exception instanceof Error ? exception.stack : undefined,
      );
    } else {
      this.logger.debug(`${error.error}: ${error.internalDetail ?? error.description}`);
    }
    if (reply.sent) return;
    const page =
      error.status >= 500
        ? renderErrorPage({
            heading: 'Something went wrong',
            description:
              error.status === 503
                ? 'The sign-in service is temporarily unavailable.'
                : 'The sign-in service ran into an unexpected problem.',
            advice: 'Wait a moment, then go back to the application and start the sign-in again.',
          })
        : renderErrorPage({ description: error.description, code: error.error });
    // E.g. Retry-After on the 429 of a locked sign-in.
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    sendHtml(reply, error.status, page);
  }
}
