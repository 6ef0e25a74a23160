import { BrowserLikeAgent, type AgentResponse } from '../../../../tools/test-support/browser-like-agent';
import { Person, PersonDrivenProvider } from '../mcp/form-walker-provider';
import { DEMO } from '../support/oauth-client';
import { baseUrl } from '../support/platform';

/**
 * A Person (see ../mcp/form-walker-provider.ts) who also keeps every page shown on the way, so a
 * test can read what the consent page said about the client.
 */
export class WatchfulPerson extends Person {
  private readonly browser = new BrowserLikeAgent(baseUrl());
  /** The HTML of each consent page seen (the page with the Approve button). */
  readonly consentPages: string[] = [];

  override async authorize(authorizationUrl: URL | string, account = DEMO): Promise<URL> {
    this.consents.push(new URL(authorizationUrl));
    let page: AgentResponse = await this.browser.open(authorizationUrl.toString());
    for (let step = 0; step < 3 && !page.location; step++) {
      if (page.status >= 400) throw new Error(`the authorization server answered ${page.status}: ${page.body.slice(0, 400)}`);
      if (/type="password"/.test(page.body)) {
        page = await this.browser.submit(page, { email: account.email, password: account.password });
      } else {
        this.consentPages.push(page.body);
        page = await this.browser.submit(page, {}, 'Approve');
      }
    }
    if (!page.location) throw new Error(`no redirect to the client after consent: ${page.status} ${page.body.slice(0, 400)}`);
    return new URL(page.location);
  }
}

/**
 * The MCP SDK's OAuthClientProvider for a client whose client_id is the URL of its metadata
 * document: `clientMetadataUrl` makes the SDK use that URL as client_id (no registration) when
 * the authorization server says `client_id_metadata_document_supported: true`.
 */
export class MetadataDocumentProvider extends PersonDrivenProvider {
  constructor(
    person: Person,
    name: string,
    readonly clientMetadataUrl: string,
    private readonly callbackUrl: string,
  ) {
    super(person, name);
  }

  override get redirectUrl(): string {
    return this.callbackUrl;
  }

  override get clientMetadata() {
    return { ...super.clientMetadata, redirect_uris: [this.callbackUrl] };
  }

  /** The refresh token currently held. */
  refreshToken(): string | undefined {
    return (this.tokens() as { refresh_token?: string } | undefined)?.refresh_token;
  }
}
