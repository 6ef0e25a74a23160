import type { TokenScheme } from './bearer-header';

const SCHEME = Symbol('bearer-auth:token-scheme');

/**
 * The scheme a request presented its token with, noted by the strategy that recognised it, so
 * that the guard's challenge names the error in that scheme's challenge (RFC 9449 §7.1).
 */
export function notePresentedScheme(request: object, scheme: TokenScheme): void {
  (request as { [SCHEME]?: TokenScheme })[SCHEME] = scheme;
}

export function presentedSchemeOf(request: object): TokenScheme | undefined {
  return (request as { [SCHEME]?: TokenScheme })[SCHEME];
}
