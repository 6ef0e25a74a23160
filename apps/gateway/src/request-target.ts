/**
 * Whether a path means one thing to the router here and another upstream. The upstream URL is
 * built with the WHATWG URL parser, which resolves dot segments (also %2e) and reads `\` as
 * `/`: `/./metrics` would be routed as an unknown path and arrive as `/metrics`. Browsers and
 * HTTP clients never send such paths, so they are refused rather than normalised.
 */
export function isAmbiguousPath(path: string): boolean {
  if (path.includes('\\')) return true;
  return path.split('/').some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment));
}
