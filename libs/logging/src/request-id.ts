import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Keeps an incoming x-request-id (set by the gateway, or a client's own trace id) when it is
 * short and plain, otherwise mints one: the value ends up in every log line and in a
 * response header, so it must not carry anything a caller could inject.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
