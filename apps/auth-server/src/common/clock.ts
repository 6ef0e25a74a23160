import { Injectable } from '@nestjs/common';

/**
 * The time the token endpoint works with (issuance, expiry, the reuse window), and the signing
 * keys (when a published key may sign): one injectable source, so a test can move it (the
 * decisions at 10 s, 5 min and 2 h after a rotation).
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}
