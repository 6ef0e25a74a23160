import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { AllowAnonymous, type AuthPrincipal, isTokenPrincipal } from '@platform/bearer-auth';
import { type Observable, of } from 'rxjs';
import { notFound } from '../common/errors';

/**
 * Reads of private resources without a token: the caller is served as the anonymous
 * principal, not challenged; a list with no public part is empty and a single private item
 * is 404. The handler never runs for them, so no query can leak private rows.
 */
@Injectable()
class EmptyPageForAnonymous implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (isAnonymous(context)) return of({ data: [], next_cursor: null });
    return next.handle();
  }
}

@Injectable()
class NotFoundForAnonymous implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (isAnonymous(context)) throw notFound(context.getClass().name.replace(/Controller$/, '').toLowerCase() || 'item');
    return next.handle();
  }
}

function isAnonymous(context: ExecutionContext): boolean {
  const request = context.switchToHttp().getRequest<{ principal?: AuthPrincipal }>();
  return !isTokenPrincipal(request.principal);
}

/** A private list: empty for anonymous callers. */
export const PrivateList = () => applyDecorators(AllowAnonymous(), UseInterceptors(EmptyPageForAnonymous));

/** A private item (or report): 404 for anonymous callers. */
export const PrivateItem = () => applyDecorators(AllowAnonymous(), UseInterceptors(NotFoundForAnonymous));
