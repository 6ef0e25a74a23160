// The paths live in libs/contracts (OAUTH_PATHS), shared with the resource server. This
// re-export remains only for registration/registration.controller.ts; remove it once that
// controller imports OAUTH_PATHS from '@platform/contracts'.
export { OAUTH_PATHS } from '@platform/contracts';
