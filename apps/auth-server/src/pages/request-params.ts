/**
 * The parameters of an authorization request, from the query (GET) or the form body (POST),
 * as a multimap: RFC 6749 §3.1 forbids repeated parameters, and only a multimap lets the
 * validator see the repetition. Empty values are dropped: "Parameters sent without a value
 * MUST be treated as if they were omitted from the request" (§3.1).
 *
 * Bounded before it gets here: the service runtime's parsers hold every form body and query
 * string to INPUT_LIMITS (parameters, values per name, lengths), the query on the same string
 * paramsFromUrl reads. The endpoints' own bounds (authorize/authorization-request.ts) are tighter.
 */
export type RequestParams = ReadonlyMap<string, readonly string[]>;

export function paramsFromUrl(url: string): RequestParams {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const params = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(query)) add(params, name, value);
  return params;
}

/** A parsed application/x-www-form-urlencoded body: values are strings or string arrays. */
export function paramsFromBody(body: unknown): RequestParams {
  const params = new Map<string, string[]>();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return params;
  for (const [name, raw] of Object.entries(body as Record<string, unknown>)) {
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      // Anything but a string (a JSON body's objects or numbers) becomes a value no validator
      // accepts (a control character), kept so that a repetition is still noticed.
      add(params, name, typeof value === 'string' ? value : '\u0000');
    }
  }
  return params;
}

function add(params: Map<string, string[]>, name: string, value: string): void {
  if (value === '') return;
  const values = params.get(name);
  if (values) values.push(value);
  else params.set(name, [value]);
}

export function toSearchParams(entries: Iterable<readonly [string, string]>): URLSearchParams {
  const search = new URLSearchParams();
  for (const [name, value] of entries) search.append(name, value);
  return search;
}
