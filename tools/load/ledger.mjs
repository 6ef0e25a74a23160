// What the load run believes about every token it was given, from the log of its own actions:
// active until rotated (refresh tokens), revoked, or revoked with its whole grant (a refresh
// token revoked, a code replayed). Checked at the end against introspection.

export class Ledger {
  constructor(recorder) {
    this.recorder = recorder;
    /** token -> { kind, grant, client, state, since } */
    this.tokens = new Map();
    /** grant id -> { client, tokens: Set, revoked, refreshToken, busy } */
    this.grants = new Map();
    this.nextGrant = 1;
  }

  /** A code exchange's answer: a new grant with its first pair. */
  issued(client, response) {
    const id = `g${this.nextGrant++}`;
    const grant = { id, client, tokens: new Set(), revoked: false, refreshToken: response.refresh_token, accessTokens: [response.access_token], busy: false };
    this.grants.set(id, grant);
    this.add(grant, 'access', response.access_token);
    this.add(grant, 'refresh', response.refresh_token);
    this.recorder.event({ action: 'issued', grant: id });
    return grant;
  }

  /** A refresh's answer: the presented refresh token is rotated, the new pair belongs to the grant. */
  refreshed(grant, presented, response) {
    this.set(presented, 'rotated');
    grant.refreshToken = response.refresh_token;
    grant.accessTokens.push(response.access_token);
    this.add(grant, 'access', response.access_token);
    this.add(grant, 'refresh', response.refresh_token);
    this.recorder.event({ action: 'refreshed', grant: grant.id });
  }

  /** RFC 7009: an access token alone. */
  accessRevoked(token) {
    this.set(token, 'revoked');
    this.recorder.event({ action: 'access revoked', grant: this.tokens.get(token)?.grant.id });
  }

  /** A refresh token revoked, or a code replayed: the grant and everything it produced. */
  grantRevoked(grant, reason) {
    grant.revoked = true;
    for (const token of grant.tokens) if (this.tokens.get(token).state === 'active') this.set(token, 'revoked');
    this.recorder.event({ action: 'grant revoked', grant: grant.id, reason });
  }

  isActive(token) {
    return this.tokens.get(token)?.state === 'active';
  }

  /** When the token stopped being active (for the grace of revocation events), or undefined. */
  inactiveSince(token) {
    const entry = this.tokens.get(token);
    return entry && entry.state !== 'active' ? entry.since : undefined;
  }

  add(grant, kind, token) {
    grant.tokens.add(token);
    this.tokens.set(token, { kind, grant, client: grant.client, state: 'active', since: Date.now() });
  }

  set(token, state) {
    const entry = this.tokens.get(token);
    if (entry && entry.state === 'active') Object.assign(entry, { state, since: Date.now() });
  }
}
