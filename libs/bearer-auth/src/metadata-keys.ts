// Own file so the decorators and the guard do not import each other.
export const REQUIRED_SCOPES_KEY = 'bearer-auth:required-scopes';
export const ANONYMOUS_ACCESS_KEY = 'bearer-auth:anonymous-access';
export const PUBLIC_ROUTE_KEY = 'bearer-auth:public-route';
