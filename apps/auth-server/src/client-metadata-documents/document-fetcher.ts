import { request, type RequestOptions } from 'node:https';
import { checkPeerOnConnect, guardedRequestOptions, isSpecialUseLiteral, type Resolver, SpecialUseAddressError } from '@platform/outbound-http';
import { MetadataDocumentError } from './errors';

export type { Resolver } from '@platform/outbound-http';

export interface FetchSettings {
  timeoutMs: number;
  maxBytes: number;
  allowSpecialUseAddresses: boolean;
  /** Extra PEM roots, trusted in addition to the system's (tests only). */
  extraCaCertificates?: string;
  resolver?: Resolver;
}

export interface FetchedDocument {
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Fetches a client ID metadata document (draft "Client Information Discovery"), or another
 * document a client publishes for this server (the JWK Set at its jwks_uri): one GET over
 * https, no redirects followed (Node's https never follows them; a 3xx is refused), only a
 * 200 with an application/json body, at most `maxBytes` read before the connection is cut,
 * the whole exchange bounded by `timeoutMs`, and never to a special-use address. `subject`
 * names the URL in refusals.
 */
export function fetchMetadataDocument(url: URL, settings: FetchSettings, subject = 'the client_id URL'): Promise<FetchedDocument> {
  const refuse = (problem: ConstructorParameters<typeof MetadataDocumentError>[0], description: string, detail?: string) =>
    new MetadataDocumentError(problem, description, detail ?? `${problem}: ${url.href}`);

  // An IP literal is connected to without any lookup: check it here.
  if (isSpecialUseLiteral(url, settings)) {
    return Promise.reject(refuse('special-use-address', `the host of ${subject} is a special-use address`));
  }

  return new Promise<FetchedDocument>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, result?: FetchedDocument) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(result as FetchedDocument);
    };
    const options: RequestOptions = {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'course-platform-auth-server (client-id-metadata-document)' },
      // The guarded lookup (special-use addresses refused on the address connected to) and a
      // fresh connection per fetch, so that the lookup runs for each one (libs/outbound-http).
      ...guardedRequestOptions(settings),
    };
    const req = request(url, options, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        return finish(refuse('redirect', `${subject} answered with a redirect, and redirects are not followed`, `HTTP ${status} from ${url.href}`));
      }
      if (status !== 200) {
        return finish(refuse('bad-status', `${subject} answered with HTTP ${status} instead of 200`));
      }
      const mediaType = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (mediaType !== 'application/json') {
        return finish(refuse('bad-content-type', `${subject} must answer with Content-Type application/json`));
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > settings.maxBytes) {
        return finish(refuse('too-large', `the document is larger than ${settings.maxBytes} bytes`));
      }
      const chunks: Buffer[] = [];
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > settings.maxBytes) {
          finish(refuse('too-large', `the document is larger than ${settings.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (error) => finish(refuse('unreachable', `the connection to ${subject} failed`, error.message)));
      res.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return finish(refuse('not-json', 'the document is not valid JSON'));
        }
        finish(null, { body, headers: res.headers });
      });
    });
    // Defense in depth: whatever socket was opened, its peer must be acceptable.
    checkPeerOnConnect(req, settings, (peer) =>
      finish(refuse('special-use-address', `the host of ${subject} is a special-use address`, `connected to ${peer}`)),
    );
    req.on('error', (error: Error & { code?: string }) => {
      if (error instanceof SpecialUseAddressError) {
        return finish(refuse('special-use-address', `the host of ${subject} resolves to a special-use address`, error.message));
      }
      finish(refuse('unreachable', `${subject} could not be fetched`, `${error.code ?? ''} ${error.message}`));
    });
    const timer = setTimeout(
      () => finish(refuse('timeout', `${subject} did not answer within ${settings.timeoutMs} ms`)),
      settings.timeoutMs,
    );
    req.end();
  });
}
