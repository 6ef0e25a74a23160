import { hash, timingSafeEqual } from 'node:crypto';
import { InvalidClientError } from '@platform/oauth-errors';

/** SHA-256 of the text: equal-length digests for timingSafeEqual, whatever was sent. */
const digest = (value: string) => hash('sha256', value, 'buffer');

/**
 * The caller of an internal route must present the introspection client's credentials (the
 * authorization server holds them too): HTTP Basic, RFC 7617, id and secret form-urlencoded as
 * RFC 6749 §2.3.1 has them. Both are compared in constant time, so the answer's timing says
 * nothing of how much of a guess was right.
 */
export class InternalCredentials {
  private readonly clientId: Buffer;
  private readonly clientSecret: Buffer;

  constructor(clientId: string, clientSecret: string) {
    this.clientId = digest(clientId);
    this.clientSecret = digest(clientSecret);
  }

  /** Throws 401 invalid_client (with a Basic challenge) unless `authorization` carries the credentials. */
  check(authorization: string | undefined): void {
    const presented = parseBasic(authorization);
    const idMatches = timingSafeEqual(digest(presented?.id ?? ''), this.clientId);
    const secretMatches = timingSafeEqual(digest(presented?.secret ?? ''), this.clientSecret);
    if (!presented || !idMatches || !secretMatches) {
      throw new InvalidClientError('Client authentication failed').withHeader('www-authenticate', 'Basic realm="internal"');
    }
  }
}

function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const decode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}
