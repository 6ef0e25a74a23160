export * from './registration';
export * from './tokens';
export * from './events';
export * from './metadata';
export * from './oauth-paths';
export * from './client-id';
export * from './introspection-client';
export { AUTHORIZATION_SERVER_OPENAPI } from './generated/authorization-server-openapi';
export { withoutTrailingSlashes } from './trailing-slashes';
