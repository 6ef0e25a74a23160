/**
 * `value` without the slashes it ends with, in one pass from the end. `value.replace(/\/+$/, '')`
 * says the same in quadratic time: the regex is retried at every slash of a long run that is not
 * at the end (60,000 slashes and an `x` blocked a service for seconds, issue 33).
 */
export function withoutTrailingSlashes(value: string): string {
  let end = value.length;
  while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end--;
  return end === value.length ? value : value.slice(0, end);
}
