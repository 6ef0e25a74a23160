// The paths live in libs/contracts (OAUTH_PATHS), shared with the resource server. This
// re-export keeps the controllers that still import '../discovery/endpoints' compiling.
export { OAUTH_PATHS } from '@platform/contracts';
