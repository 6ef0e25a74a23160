/**
 * The form of a URL that `htu` is compared in. RFC 9449 §4.3 check 9: "The htu claim matches the
 * HTTP URI value for the HTTP request in which the JWT was received, ignoring any query and
 * fragment parts", compared after syntax-based and scheme-based normalisation (RFC 3986 §6.2.2,
 * §6.2.3). The WHATWG parser does the scheme-based part (case of scheme and host, default port,
 * empty path, dot segments); the percent-encodings are normalised here (§6.2.2.1 upper-case hex,
 * §6.2.2.2 unreserved characters decoded). Undefined for what is not an absolute http(s) URL.
 */
export function normalizedHtu(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return `${url.protocol}//${url.host}${normalizePercentEncoding(url.pathname)}`;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

function normalizePercentEncoding(path: string): string {
  return path.replace(/%[0-9A-Fa-f]{2}/g, (encoded) => {
    const character = String.fromCharCode(Number.parseInt(encoded.slice(1), 16));
    return UNRESERVED.test(character) ? character : encoded.toUpperCase();
  });
}
