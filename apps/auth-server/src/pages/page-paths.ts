import { OAUTH_PATHS } from '@platform/contracts';

/** Where the sign-in form posts. */
export const LOGIN_ACTION = `${OAUTH_PATHS.authorization}/login`;
/** Where the consent form posts. */
export const CONSENT_ACTION = `${OAUTH_PATHS.authorization}/consent`;
