import { Injectable } from '@nestjs/common';
import type { SecurityEvent } from '@platform/contracts';
import { PrismaService } from '../database/prisma.service';
import type { Prisma } from '../generated/prisma/client';
import { appendSecurityEventsIn } from '../security-events/security-event-outbox';
import { scopeToRemember, type StoredConsent } from './remembered-consent';

export interface ApprovedAuthorization {
  clientId: string;
  userId: string;
  schoolId: string;
  scope: string;
  resource: string;
  nonce: string | null;
  authTime: Date;
  codeHash: string;
  redirectUri: string;
  codeChallenge: string;
  /** RFC 9449 §10: the dpop_jkt the code is bound to; absent when the request had none. */
  dpopJkt?: string;
  codeExpiresAt: Date;
}

/** A consent form's token as its answer consumes it. */
export interface ConsentTokenUse {
  /** SHA-256 of the token's id: the id itself is never stored. */
  idHash: string;
  /** When the token would stop being accepted anyway; the row is purged after that. */
  expiresAt: Date;
}

/** What an approval on the page adds to the user's remembered consent for the client. */
export interface ConsentToRemember {
  /** The scopes the page approved (the request's, canonical). */
  scopes: readonly string[];
  /** Of the client's redirect URIs now (remembered-consent.ts redirectUrisDigest). */
  redirectUrisDigest: string;
  /** Now plus the refresh token lifetime. */
  expiresAt: Date;
  /** The approving browser's families and network (pages/approving-browser.ts). */
  device: string | null;
  network: string | null;
}

/** The security event of an approval, made once its grant exists (the grant is its subject). */
export type GrantedEvent = (grantId: string) => SecurityEvent;

/** A remembered consent that answers instead of the page. */
export interface RememberedConsentUse {
  consentId: string;
  /** Pushed on by this use: now plus the refresh token lifetime. */
  expiresAt: Date;
}

@Injectable()
export class AuthorizeRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One transaction: the consent token consumed, the grant, its authorization code, and the
   * client's first-authorization mark (unauthorized clients are purged after a while, so the
   * mark must not be lost when the code is created, nor set when it is not). Null, and nothing
   * written, when the token was consumed before: by an earlier answer, on any instance. Two
   * concurrent answers with one token meet on the primary key: the second waits for the first
   * to commit and then inserts nothing. With `remember`, the user's remembered consent for the
   * client takes in what was approved, in the same transaction; so does the approval's
   * security event (`granted`): recorded if and only if the grant is.
   */
  async insertGrantWithCode(
    approved: ApprovedAuthorization,
    consentToken: ConsentTokenUse,
    now: Date,
    remember: ConsentToRemember | undefined,
    granted: GrantedEvent,
  ): Promise<{ grantId: string } | null> {
    return this.prisma.$transaction(async (tx) => {
      const consumed = await tx.consumedConsentToken.createMany({ data: [consentToken], skipDuplicates: true });
      if (consumed.count === 0) return null;
      const grantId = await insertGrant(tx, approved, 'form', now);
      if (remember) await rememberConsent(tx, approved, remember, now);
      await appendSecurityEventsIn(tx, [granted(grantId)]);
      return { grantId };
    });
  }

  /**
   * A code issued on remembered consent, without a page: the grant records it (approval
   * "remembered") and the consent its use. Null, and nothing written, when the consent is gone or
   * has lapsed in between (forgotten on the connected-apps page, on any instance): then the page
   * is shown. The security event (`granted`) is written with the grant.
   */
  async insertGrantOnRememberedConsent(
    approved: ApprovedAuthorization,
    use: RememberedConsentUse,
    now: Date,
    granted: GrantedEvent,
  ): Promise<{ grantId: string } | null> {
    return this.prisma.$transaction(async (tx) => {
      const kept = await tx.consent.updateMany({
        where: { id: use.consentId, userId: approved.userId, clientId: approved.clientId, expiresAt: { gt: now } },
        data: { lastUsedAt: now, expiresAt: use.expiresAt },
      });
      if (kept.count === 0) return null;
      const grantId = await insertGrant(tx, approved, 'remembered', now);
      await appendSecurityEventsIn(tx, [granted(grantId)]);
      return { grantId };
    });
  }

  /** The user's remembered consent for the client, lapsed or not. */
  findConsent(userId: string, clientId: string): Promise<StoredConsent | null> {
    return this.prisma.consent.findUnique({
      where: { userId_clientId: { userId, clientId } },
      select: { id: true, scope: true, redirectUrisDigest: true, expiresAt: true },
    });
  }

  /** A denial consumes its consent token too; false when the token was consumed before. */
  async consumeConsentToken(consentToken: ConsentTokenUse): Promise<boolean> {
    const consumed = await this.prisma.consumedConsentToken.createMany({ data: [consentToken], skipDuplicates: true });
    return consumed.count === 1;
  }
}

/** The grant, its code, and the client's first-authorization mark. */
async function insertGrant(tx: Prisma.TransactionClient, approved: ApprovedAuthorization, approval: 'form' | 'remembered', now: Date): Promise<string> {
  const grant = await tx.grant.create({
    data: {
      clientId: approved.clientId,
      userId: approved.userId,
      schoolId: approved.schoolId,
      scope: approved.scope,
      resource: approved.resource,
      nonce: approved.nonce,
      authTime: approved.authTime,
      approval,
    },
    select: { id: true },
  });
  await tx.authorizationCode.create({
    data: {
      codeHash: approved.codeHash,
      grantId: grant.id,
      redirectUri: approved.redirectUri,
      codeChallenge: approved.codeChallenge,
      dpopJkt: approved.dpopJkt ?? null,
      expiresAt: approved.codeExpiresAt,
    },
  });
  await tx.client.updateMany({
    where: { id: approved.clientId, firstAuthorizedAt: null },
    data: { firstAuthorizedAt: now },
  });
  return grant.id;
}

/**
 * Adds an approval to the remembered consent (one row per user and client). Two approvals for
 * one client at the same moment (two tabs) may leave only one of them remembered: the other
 * client request is then asked again, never granted beyond what was approved.
 */
async function rememberConsent(tx: Prisma.TransactionClient, approved: ApprovedAuthorization, remember: ConsentToRemember, now: Date): Promise<void> {
  const where = { userId_clientId: { userId: approved.userId, clientId: approved.clientId } };
  const stored = await tx.consent.findUnique({ where, select: { scope: true, redirectUrisDigest: true, expiresAt: true } });
  const lapsed = !stored || stored.expiresAt <= now || stored.redirectUrisDigest !== remember.redirectUrisDigest;
  const data = {
    scope: scopeToRemember(stored, remember.scopes, remember.redirectUrisDigest, now),
    redirectUrisDigest: remember.redirectUrisDigest,
    approvedAt: now,
    expiresAt: remember.expiresAt,
    device: remember.device,
    network: remember.network,
  };
  await tx.consent.upsert({
    where,
    create: { userId: approved.userId, clientId: approved.clientId, grantedAt: now, ...data },
    // A consent that no longer held starts again: its first approval is this one.
    update: lapsed ? { ...data, grantedAt: now, lastUsedAt: null } : data,
  });
}
