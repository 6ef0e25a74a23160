import { type BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { InvalidClientError } from '@platform/oauth-errors';
import {
  addressBucket,
  KeyedLimit,
  keyDigest,
  type Limit,
  type RateLimitStore,
  type Refusal,
  type RouteCheck,
  SharedFromSecondHit,
  tooManyRequests,
  type WindowCounter,
  windowCounterFor,
} from '@platform/rate-limits';
import { RATE_LIMIT_STORE } from '../rate-limits/rate-limit-store';
import { MetadataDocumentError } from '../client-metadata-documents/errors';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { UnmatchedGrantError } from './grants/unmatched-grant.error';
import { familyKey } from './refresh-family';
import { TokenEndpointMetrics } from './token-endpoint-metrics';

/**
 * The token endpoint's limits that need what the request turns out to be, each keyed so that
 * nobody can spend another party's budget:
 * - failures per address: what looks like guessing (isCredentialGuess) is counted against the
 *   caller's address, which is then refused before its body is read (failureCheck, a hook of
 *   the route) until the window ends. Successes and ordinary failures count nothing, so the
 *   shared egress address of a hosted agent is not throttled by its users' traffic. (Keycloak's
 *   brute-force detector counts failures too, per user.)
 * - per authenticated client: counted once a client secret or assertion was verified; public
 *   clients have none, since their client_id is public.
 * - per grant: counted after each success (and each stale-session answer), checked before the
 *   next rotation from the family id the presented token carries (refresh-family.ts): no
 *   database read, and a refused grant keeps its current token.
 * - per user: counted after each success; a user over budget has each of their grants refused
 *   from its next request on.
 * The counts are shared by every instance (KeyedLimit over the store of RATE_LIMIT_STORE); those of
 * successes from a key's second hit in a window on an instance (SharedFromSecondHit).
 */
@Injectable()
export class TokenEndpointLimits implements BeforeApplicationShutdown {
  private readonly enabled: boolean;
  private readonly counter: WindowCounter;
  private readonly failures: KeyedLimit;
  private readonly grants: KeyedLimit;
  private readonly users: KeyedLimit;
  private readonly clients: KeyedLimit;

  constructor(
    @Inject(RATE_LIMIT_STORE) store: RateLimitStore,
    @Inject(AUTH_CONFIG) config: AuthConfig,
    private readonly metrics: TokenEndpointMetrics,
  ) {
    const limits = config.limits.tokenEndpoint;
    this.enabled = config.limits.rateLimits.enabled;
    this.counter = windowCounterFor(store);
    // Successes: a key hit once a minute (most grants, users and clients) costs no round trip to
    // Redis. Failures, rare for legitimate clients, are shared from the first one.
    const successes = new SharedFromSecondHit(this.counter);
    const limit = (name: string, { max, windowSeconds }: Limit, subject: string, counter: WindowCounter = successes) =>
      new KeyedLimit({ name, max, windowSeconds, subject }, counter);
    this.failures = limit('token:failures:ip', limits.failuresPerIp, 'the token endpoint from this address after its failed requests', this.counter);
    this.grants = limit('token:grant', limits.perGrant, 'the token endpoint for this grant');
    this.users = limit('token:user', limits.perUser, 'the token endpoint for this user');
    this.clients = limit('token:client', limits.perAuthenticatedClient, 'the token endpoint for this client');
  }

  /** The token route's check before its body is read: an address refused for its failures. */
  failureCheck(): RouteCheck {
    return {
      method: 'POST',
      url: OAUTH_PATHS.token,
      stage: 'onRequest',
      check: (_request, ip) => {
        const refusal = this.failures.refusalOf(addressBucket(ip));
        this.noted(refusal);
        return refusal;
      },
    };
  }

  /** A client that authenticated spends its own budget; a public client has none. */
  admitClient(client: { id: string; tokenEndpointAuthMethod: string }): void | Promise<void> {
    if (!this.enabled || client.tokenEndpointAuthMethod === 'none') return undefined;
    const refusal = this.clients.hit(keyDigest(client.id));
    if (refusal instanceof Promise) return refusal.then((answer) => this.refuseIf(answer));
    return this.refuseIf(refusal);
  }

  /** Before a refresh rotates anything: throws while the presented token's grant is over its budget (or its user's). */
  admitRefresh(family: string | undefined): void {
    if (!this.enabled || family === undefined) return;
    this.refuseIf(this.grants.refusalOf(familyKey(family)));
  }

  /** After tokens were issued in a grant (a code exchange, a refresh): counted, never waited for. */
  issued(family: string | undefined, userId: string): void {
    if (!this.enabled) return;
    const key = family === undefined ? undefined : familyKey(family);
    if (key !== undefined) void this.grants.record(key);
    const byUser = this.users.record(keyDigest(`user ${userId}`));
    if (key === undefined) return;
    if (byUser instanceof Promise) void byUser.then((refusal) => refusal && this.grants.spend(key, refusal));
    else if (byUser) this.grants.spend(key, byUser);
  }

  /**
   * A refresh answered without tokens that still spent the grant's time (a stale session).
   * Awaited by the refusal: counted before the client can send its next try.
   */
  async presented(family: string | undefined): Promise<void> {
    if (this.enabled && family !== undefined) await this.grants.record(familyKey(family));
  }

  /**
   * A refused request: counted against its address when it looks like guessing, before the
   * answer goes out, so a guesser's next request already meets the count (failures are rare
   * for legitimate clients: the wait for the store costs them nothing).
   */
  async failed(address: string, error: unknown): Promise<void> {
    if (this.enabled && isCredentialGuess(error)) await this.failures.record(address);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.counter.flush();
  }

  private refuseIf(refusal: Refusal | undefined): void {
    if (this.noted(refusal)) throw tooManyRequests(refusal);
  }

  private noted(refusal: Refusal | undefined): refusal is Refusal {
    if (refusal) this.metrics.refused(refusal.rule.name);
    return refusal !== undefined;
  }
}

/**
 * What a guesser's requests end in: a client that failed to authenticate (unknown, a wrong
 * secret or assertion; not a metadata document that could not be fetched, which is the
 * document host's failure), or a code or refresh token that matches nothing issued to the
 * client (UnmatchedGrantError). 256-bit codes and tokens make a guess hopeless; what this
 * bounds is the work and the noise of trying.
 */
export function isCredentialGuess(error: unknown): boolean {
  if (error instanceof UnmatchedGrantError) return true;
  return error instanceof InvalidClientError && !(error instanceof MetadataDocumentError);
}
