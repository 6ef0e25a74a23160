/**
 * How long a fetched document may be used (draft "Metadata Caching": the authorization
 * server "MAY cache" the document "respecting HTTP cache headers"; RFC 9111 §4.2.1 for the
 * freshness lifetime and §4.2.3 for Age). The lifetime is clamped to [min, max]: a floor,
 * because a document fetched on every request would make this server a fetch amplifier for
 * anyone who can start authorization requests; a ceiling, so that a changed document is
 * picked up within a bounded time. no-store / no-cache / max-age=0 therefore mean "the floor".
 */
export function freshnessSeconds(
  headers: Record<string, string | string[] | undefined>,
  bounds: { min: number; max: number },
  now = Date.now(),
): number {
  const clamp = (seconds: number) => Math.min(bounds.max, Math.max(bounds.min, Math.floor(seconds)));
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const directives = new Map<string, string | true>();
  for (const part of (header('cache-control') ?? '').split(',')) {
    const [name, ...rest] = part.trim().split('=');
    if (name) directives.set(name.toLowerCase(), rest.length > 0 ? rest.join('=').replace(/^"|"$/g, '') : true);
  }
  if (directives.has('no-store') || directives.has('no-cache')) return bounds.min;
  const age = Number(header('age') ?? 0);
  const currentAge = Number.isFinite(age) && age > 0 ? age : 0;
  const maxAge = directives.get('max-age');
  if (typeof maxAge === 'string' && /^\d+$/.test(maxAge)) return clamp(Number(maxAge) - currentAge);
  const expires = Date.parse(header('expires') ?? '');
  if (!Number.isNaN(expires)) {
    const date = Date.parse(header('date') ?? '');
    return clamp((expires - (Number.isNaN(date) ? now : date)) / 1000 - currentAge);
  }
  // No explicit lifetime: no heuristic freshness for security metadata, just the floor.
  return bounds.min;
}
