import type { TokenRevokedEvent } from '@platform/contracts';
import { ServiceMetrics } from '@platform/metrics';
import { Counter } from 'prom-client';
import { SUPPORTED_GRANT_TYPES } from '../common/supported-grant-types';

const REVOCATION_REASONS: TokenRevokedEvent['reason'][] = ['revocation', 'refresh_token_reuse', 'code_replay'];

/** The authorization server's registry: HTTP and process metrics, tokens issued, revocations. */
export class AuthMetrics extends ServiceMetrics {
  private readonly tokensIssued = new Counter({
    name: 'oauth_tokens_issued_total',
    help: 'Token endpoint responses that issued tokens, by grant type',
    labelNames: ['grant_type'] as const,
    registers: [this.registry],
  });

  private readonly revocations = new Counter({
    name: 'oauth_revocations_total',
    help: 'Revocations: a token revoked by its client (RFC 7009), or a whole grant on code replay or refresh token reuse',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    super();
    // Every series exists from the start, so rate() and alerts see 0 rather than nothing.
    for (const grantType of SUPPORTED_GRANT_TYPES) this.tokensIssued.inc({ grant_type: grantType }, 0);
    for (const reason of REVOCATION_REASONS) this.revocations.inc({ reason }, 0);
  }

  tokenIssued(grantType: string): void {
    this.tokensIssued.inc({ grant_type: grantType });
  }

  revoked(reason: TokenRevokedEvent['reason']): void {
    this.revocations.inc({ reason });
  }
}
