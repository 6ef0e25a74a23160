import { OAUTH_PATHS } from '@platform/contracts';

/** Where the sign-in form posts. */
export const LOGIN_ACTION = `${OAUTH_PATHS.authorization}/login`;
/** Where the consent form posts. */
export const CONSENT_ACTION = `${OAUTH_PATHS.authorization}/consent`;

/** The connected-apps page, and where its forms post. */
export const CONNECTED_APPS_PATH = '/oauth/connected-apps';
export const CONNECTED_APPS_LOGIN = `${CONNECTED_APPS_PATH}/login`;
export const CONNECTED_APPS_DISCONNECT = `${CONNECTED_APPS_PATH}/disconnect`;
export const CONNECTED_APPS_SIGN_OUT = `${CONNECTED_APPS_PATH}/sign-out`;
