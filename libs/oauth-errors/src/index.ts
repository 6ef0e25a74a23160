export * from './oauth-error';
export { toOAuthError } from './to-oauth-error';
export { bearerChallenge, type BearerChallenge } from './www-authenticate';
export { OAuthExceptionFilter, sendOAuthError } from './oauth-exception.filter';
export { frameworkErrorOptions } from './framework-errors';
