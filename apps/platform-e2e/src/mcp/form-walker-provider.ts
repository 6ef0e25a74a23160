import { BrowserLikeAgent, type AgentResponse } from '../../../../tools/test-support/browser-like-agent';
import { DEMO } from '../support/oauth-client';
import { baseUrl } from '../support/platform';

export const MCP_REDIRECT_URI = 'http://127.0.0.1:8765/mcp-callback';

/**
 * The person at the browser, for an MCP client: signs in and approves on the real login and
 * consent pages of whatever authorization URL the client opens, and returns the client's
 * loopback callback URL (where a browser would have been sent).
 */
export class Person {
  private readonly agent = new BrowserLikeAgent(baseUrl());
  readonly consents: URL[] = [];

  async authorize(authorizationUrl: URL | string, account = DEMO): Promise<URL> {
    this.consents.push(new URL(authorizationUrl));
    let page: AgentResponse = await this.agent.open(authorizationUrl.toString());
    for (let step = 0; step < 3 && !page.location; step++) {
      if (page.status >= 400) throw new Error(`the authorization server answered ${page.status}: ${page.body.slice(0, 400)}`);
      page = /type="password"/.test(page.body)
        ? await this.agent.submit(page, { email: account.email, password: account.password })
        : await this.agent.submit(page, {}, 'Approve');
    }
    if (!page.location) throw new Error(`no redirect to the client after consent: ${page.status} ${page.body.slice(0, 400)}`);
    return new URL(page.location);
  }
}

/**
 * An MCP SDK OAuthClientProvider (the same interface in SDK v1 and v2) whose "browser" is a
 * Person. Everything else is the SDK's own: discovery, dynamic registration, PKCE, the token
 * request, step-up. In memory, one per client.
 */
export class PersonDrivenProvider {
  /** The callback URL of the last authorization, for `transport.finishAuth`. */
  callback?: URL;
  private client?: Record<string, unknown>;
  private stored?: { access_token: string; scope?: string } & Record<string, unknown>;
  private verifier = '';
  private discovery?: unknown;
  private readonly expectedStates: string[] = [];

  constructor(
    readonly person: Person,
    private readonly name: string,
  ) {}

  get redirectUrl(): string {
    return MCP_REDIRECT_URI;
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [MCP_REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    const state = crypto.randomUUID();
    this.expectedStates.push(state);
    return state;
  }

  clientInformation() {
    return this.client as never;
  }

  saveClientInformation(information: Record<string, unknown>): void {
    this.client = information;
  }

  tokens() {
    return this.stored as never;
  }

  saveTokens(tokens: { access_token: string; scope?: string }): void {
    this.stored = tokens;
  }

  /** The application's "sign in again": the stored tokens are dropped (the registration stays). */
  forgetTokens(): void {
    this.stored = undefined;
  }

  /** The scopes of the current access token. */
  grantedScopes(): string[] {
    return this.stored?.scope?.split(' ') ?? [];
  }

  accessToken(): string | undefined {
    return this.stored?.access_token;
  }

  registeredClientId(): string | undefined {
    return this.client?.['client_id'] as string | undefined;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.callback = await this.person.authorize(authorizationUrl);
    // The SDK leaves `state` to the application: check it as a client must.
    const state = this.callback.searchParams.get('state');
    if (!state || !this.expectedStates.includes(state)) throw new Error(`unexpected state in the callback: ${state}`);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  saveDiscoveryState(state: unknown): void {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery as never;
  }

  /** The callback of the last authorization; throws when there was none. */
  takeCallback(): URL {
    const callback = this.callback;
    if (!callback) throw new Error('the client did not open an authorization URL');
    this.callback = undefined;
    return callback;
  }
}
