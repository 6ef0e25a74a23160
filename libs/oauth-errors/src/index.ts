export * from './oauth-error';
export { toOAuthError } from './to-oauth-error';
export {
  registerErrorClassifier,
  causeChain,
  hasCodeInChain,
  internalDetailOf,
  type ErrorClassifier,
} from './error-classifiers';
export { bearerChallenge, dpopChallenge, type BearerChallenge, type DpopChallenge } from './www-authenticate';
export { OAuthExceptionFilter, sendOAuthError } from './oauth-exception.filter';
export { frameworkErrorOptions } from './framework-errors';
export { toErrorDescription, isErrorDescription, ERROR_DESCRIPTION_GRAMMAR, MAX_ERROR_DESCRIPTION_LENGTH } from './error-description';
