import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Server-provided nonces (RFC 9449 §8, §9) without shared state: a nonce is the time step it was
 * issued in and an HMAC of that step under a secret every replica of the service holds, so any
 * replica accepts what another issued. The current and the previous step are accepted, so a nonce
 * lives between one and two steps.
 */
export class DpopNonces {
  constructor(
    private readonly secret: Uint8Array,
    private readonly stepSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    if (secret.byteLength < 32) throw new Error('DpopNonces: the secret must be at least 32 bytes');
    if (!Number.isInteger(stepSeconds) || stepSeconds <= 0) throw new Error('DpopNonces: stepSeconds must be a positive integer');
  }

  current(): string {
    return this.nonceFor(this.step());
  }

  accepts(nonce: string): boolean {
    const dot = nonce.indexOf('.');
    if (dot <= 0 || nonce.length > 64) return false;
    const step = Number(nonce.slice(0, dot));
    const now = this.step();
    if (step !== now && step !== now - 1) return false;
    const expected = Buffer.from(this.nonceFor(step));
    const given = Buffer.from(nonce);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private step(): number {
    return Math.floor(this.clock() / 1000 / this.stepSeconds);
  }

  /** RFC 9449 §4.2: the nonce is a non-empty string of NQCHAR; a decimal step and base64url fit. */
  private nonceFor(step: number): string {
    const mac = createHmac('sha256', this.secret).update(`dpop-nonce:${step}`).digest('base64url');
    return `${step}.${mac}`;
  }
}
