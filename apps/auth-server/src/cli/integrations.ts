import { formatScopes, parseScopeString, scopesOutside, unknownScopes } from '@platform/scopes';
import type { ClientChangedEvent } from '@platform/contracts';
import type { JSONWebKeySet } from 'jose';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { checkPublicKeySet, jwksUriProblem } from '../clients/public-key-set';
import { REDIRECT_URI_PROBLEMS, checkHttpsRedirectUri } from '../clients/redirect-uri';
import { generateClientId, generateOpaqueToken, hashToken } from '../crypto/tokens';
import { grantRevoked, type IntegrationAction, integrationChanged } from '../security-events/recorded-events';
import { securityEventOf } from '../security-events/security-event';
import { appendSecurityEventsIn } from '../security-events/security-event-outbox';
import { SUPPORTED_GRANT_TYPES } from '../common/supported-grant-types';

/** Staff-created confidential clients: "registered integrations". */
export const INTEGRATION_KIND = 'integration';
export type IntegrationAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt';
export const INTEGRATION_AUTH_METHODS: readonly IntegrationAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];

/** A private_key_jwt integration's public keys, as staff gave them: a JWK Set (parsed JSON) or its https URL. */
export interface IntegrationKeys {
  jwks?: unknown;
  jwksUri?: string;
}
const MAX_REDIRECT_URIS = 10;

/** A mistake in what staff typed: the CLI prints it and exits with status 2. */
export class UsageError extends Error {}

export interface NewIntegration extends IntegrationKeys {
  name: string;
  redirectUris: readonly string[];
  /** Default: private_key_jwt when keys are given, else client_secret_basic. */
  authMethod?: IntegrationAuthMethod;
  /** Scopes the client may never be granted beyond; undefined = no ceiling (consent decides). */
  scopeCeiling?: string;
  /** Asked for when a request names no scope; must fit the ceiling. Empty = the server's least-privilege default. */
  defaultScope?: string;
  /** RFC 9449 §5.2 dpop_bound_access_tokens: every token request must carry a DPoP proof. Default false. */
  dpopBoundAccessTokens?: boolean;
}

export interface ClientSummary {
  clientId: string;
  kind: string;
  name: string | null;
  authMethod: string;
  redirectUris: string[];
  defaultScope: string;
  scopeCeiling: string | null;
  /** private_key_jwt: the registered public keys (kid and type of each), or null. */
  publicKeys: { kid: string | null; kty: string }[] | null;
  /** private_key_jwt: the URL of its key set, or null. */
  jwksUri: string | null;
  /** RFC 9449 §5.2: a token request without a DPoP proof is refused, so every access token is DPoP-bound. */
  dpopBoundAccessTokens: boolean;
  createdAt: Date;
  disabledAt: Date | null;
  firstAuthorizedAt: Date | null;
  activeGrants: number;
}

/** Ends one grant and its tokens and tells the resource servers (token/grant-revoker.ts). */
export interface GrantEnder {
  revokeGrant(grantId: string, reason: 'revocation'): Promise<void>;
}

/** Tells the authorization servers that a client's row changed (clients/held-clients.ts). */
export interface ClientChangeAnnouncer {
  announce(clientId: string, change: ClientChangedEvent['change']): Promise<void>;
}

/**
 * An integration's redirect URI: https, compared character for character at the
 * authorization endpoint, so it must already be in normalized form (clients/redirect-uri.ts).
 */
export function checkIntegrationRedirectUri(raw: string): string | null {
  const problem = checkHttpsRedirectUri(raw);
  return problem === null ? null : REDIRECT_URI_PROBLEMS[problem];
}

/**
 * The keys of a private_key_jwt integration (RFC 7591 §2): a JWK Set of public signature keys or
 * an https jwks_uri, not both. A private key (a JWK with d) or a symmetric one (k) is refused:
 * the integration keeps its private key, and this server never holds a secret of it.
 */
export function checkIntegrationKeys(keys: IntegrationKeys): { jwks: JSONWebKeySet | null; jwksUri: string | null } {
  if (keys.jwks !== undefined && keys.jwksUri !== undefined) throw new UsageError('--jwks and --jwks-uri: give one of them, not both');
  if (keys.jwksUri !== undefined) {
    const problem = jwksUriProblem(keys.jwksUri);
    if (problem) throw new UsageError(`--jwks-uri: ${problem}`);
    return { jwks: null, jwksUri: keys.jwksUri };
  }
  if (keys.jwks === undefined) throw new UsageError('private_key_jwt needs the public keys: --jwks FILE_OR_JSON or --jwks-uri https://...');
  // A lone JWK is accepted as a set of one.
  const set = typeof keys.jwks === 'object' && keys.jwks !== null && 'kty' in keys.jwks ? { keys: [keys.jwks] } : keys.jwks;
  const checked = checkPublicKeySet(set);
  if ('problem' in checked) throw new UsageError(`--jwks: ${checked.problem}`);
  return { jwks: checked.keySet, jwksUri: null };
}

function checkScope(option: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const scopes = parseScopeString(value);
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0) throw new UsageError(`${option}: unknown scope ${unknown.join(', ')}`);
  return scopes;
}

/** Who runs the tool, as its security events name them (the operating-system user); how a failure to record is reported. */
export interface StaffContext {
  staffId: string | null;
  warn(line: string): void;
}

/**
 * Every change is recorded as a security event (auth.integration.changed, platform-wide, the staff
 * member as actor) in the transaction of the change; each grant ended as auth.grant.revoked for
 * its school, once it is ended. The running servers' relays send them to the audit log.
 */
export class Integrations {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly grants: GrantEnder,
    private readonly changes: ClientChangeAnnouncer,
    private readonly staff: StaffContext = { staffId: null, warn: () => undefined },
  ) {}

  /**
   * Returns the secret once (only its SHA-256 is stored, crypto/tokens.ts, as registration does);
   * a private_key_jwt integration gets none: it signs with its own private key.
   */
  async create(input: NewIntegration): Promise<{ client: ClientSummary; clientSecret?: string }> {
    const name = input.name.trim();
    if (!name || name.length > 200 || /[\p{Cc}\p{Cf}]/u.test(name)) throw new UsageError('--name: 1 to 200 printable characters');
    if (input.redirectUris.length === 0) throw new UsageError('--redirect-uri: at least one is required');
    if (input.redirectUris.length > MAX_REDIRECT_URIS) throw new UsageError(`--redirect-uri: at most ${MAX_REDIRECT_URIS}`);
    for (const uri of input.redirectUris) {
      const problem = checkIntegrationRedirectUri(uri);
      if (problem) throw new UsageError(`--redirect-uri ${uri} ${problem}`);
    }
    const keysGiven = input.jwks !== undefined || input.jwksUri !== undefined;
    const authMethod = input.authMethod ?? (keysGiven ? 'private_key_jwt' : 'client_secret_basic');
    if (!INTEGRATION_AUTH_METHODS.includes(authMethod)) throw new UsageError(`--auth-method: one of ${INTEGRATION_AUTH_METHODS.join(', ')}`);
    if (keysGiven && authMethod !== 'private_key_jwt') throw new UsageError('--jwks and --jwks-uri go with --auth-method private_key_jwt');
    const keys = authMethod === 'private_key_jwt' ? checkIntegrationKeys(input) : { jwks: null, jwksUri: null };
    const ceiling = checkScope('--scope-ceiling', input.scopeCeiling);
    const defaults = checkScope('--default-scope', input.defaultScope) ?? [];
    if (ceiling && ceiling.length === 0) throw new UsageError('--scope-ceiling: name at least one scope');
    const beyond = ceiling ? scopesOutside(defaults, ceiling) : [];
    if (beyond.length > 0) throw new UsageError(`--default-scope: ${beyond.join(', ')} is beyond the ceiling`);

    const clientSecret = authMethod === 'private_key_jwt' ? undefined : generateOpaqueToken();
    const row = await this.changeRecorded('created', { auth_method: authMethod }, (tx) =>
      tx.client.create({
        data: {
          id: generateClientId(),
          kind: INTEGRATION_KIND,
          secretHash: clientSecret === undefined ? null : hashToken(clientSecret),
          jwks: keys.jwks === null ? Prisma.DbNull : (keys.jwks as unknown as Prisma.InputJsonObject),
          jwksUri: keys.jwksUri,
          name,
          applicationType: 'web',
          redirectUris: [...new Set(input.redirectUris)],
          tokenEndpointAuthMethod: authMethod,
          grantTypes: [...SUPPORTED_GRANT_TYPES],
          responseTypes: ['code'],
          scope: formatScopes(defaults),
          scopeCeiling: ceiling ? formatScopes(ceiling) : null,
          dpopBoundAccessTokens: input.dpopBoundAccessTokens ?? false,
        },
      }),
    );
    return { client: { ...summaryOf(row), activeGrants: 0 }, clientSecret };
  }

  /** Integrations and metadata-document clients by default; `all` adds self-registered ones. */
  async list(options: { all?: boolean } = {}): Promise<ClientSummary[]> {
    const rows = await this.prisma.client.findMany({
      where: options.all ? {} : { kind: { in: [INTEGRATION_KIND, 'metadata_document'] } },
      orderBy: { createdAt: 'asc' },
      take: 1000,
    });
    const counts = await this.activeGrantCounts(rows.map((row) => row.id));
    return rows.map((row) => ({ ...summaryOf(row), activeGrants: counts.get(row.id) ?? 0 }));
  }

  async show(clientId: string): Promise<ClientSummary> {
    const row = await this.find(clientId);
    const counts = await this.activeGrantCounts([row.id]);
    return { ...summaryOf(row), activeGrants: counts.get(row.id) ?? 0 };
  }

  /** The old secret stops working at once; tokens already issued stay valid until they expire or are revoked. */
  async rotateSecret(clientId: string): Promise<string> {
    const row = await this.find(clientId);
    if (row.kind !== INTEGRATION_KIND) throw new UsageError('only integrations created with this tool have a secret to rotate');
    if (row.tokenEndpointAuthMethod === 'private_key_jwt') {
      throw new UsageError(`${row.id} authenticates with private_key_jwt and has no secret: replace its keys with set-keys`);
    }
    const clientSecret = generateOpaqueToken();
    await this.changeRecorded('secret_rotated', {}, (tx) => tx.client.update({ where: { id: row.id }, data: { secretHash: hashToken(clientSecret) } }));
    await this.changes.announce(row.id, 'secret_rotated');
    return clientSecret;
  }

  /**
   * A private_key_jwt integration's keys replaced (a rotation: publish the new key in the set next
   * to the old one, then drop the old one). The authenticator reads the keys on every request, so
   * the change counts at once on every instance; nothing is held that must be told.
   */
  async setKeys(clientId: string, input: IntegrationKeys): Promise<ClientSummary> {
    const row = await this.find(clientId);
    if (row.kind !== INTEGRATION_KIND || row.tokenEndpointAuthMethod !== 'private_key_jwt') {
      throw new UsageError('only integrations created with --auth-method private_key_jwt have keys to replace');
    }
    const keys = checkIntegrationKeys(input);
    const updated = await this.changeRecorded('keys_set', { jwks_uri: keys.jwksUri }, (tx) =>
      tx.client.update({
        where: { id: row.id },
        data: { jwks: keys.jwks === null ? Prisma.DbNull : (keys.jwks as unknown as Prisma.InputJsonObject), jwksUri: keys.jwksUri },
      }),
    );
    const counts = await this.activeGrantCounts([row.id]);
    return { ...summaryOf(updated), activeGrants: counts.get(row.id) ?? 0 };
  }

  /** Disabled: no new authorization nor token request, and every live grant ended now. Returns the number ended. */
  async disable(clientId: string): Promise<number> {
    const row = await this.find(clientId);
    await this.changeRecorded('disabled', {}, (tx) => tx.client.update({ where: { id: row.id }, data: { disabledAt: row.disabledAt ?? new Date() } }));
    await this.changes.announce(row.id, 'disabled');
    return this.endGrants(row.id, 'integration_disabled');
  }

  async enable(clientId: string): Promise<void> {
    const row = await this.find(clientId);
    await this.changeRecorded('enabled', {}, (tx) => tx.client.update({ where: { id: row.id }, data: { disabledAt: null } }));
    await this.changes.announce(row.id, 'enabled');
  }

  /** Ends every grant (so resource servers hear of it), then deletes the client and, by cascade, its history. */
  async delete(clientId: string): Promise<number> {
    const row = await this.find(clientId);
    const ended = await this.endGrants(row.id, 'integration_deleted');
    await this.changeRecorded('deleted', {}, (tx) => tx.client.delete({ where: { id: row.id } }));
    await this.changes.announce(row.id, 'deleted');
    return ended;
  }

  private async endGrants(clientId: string, reason: 'integration_disabled' | 'integration_deleted'): Promise<number> {
    const live = await this.prisma.grant.findMany({ where: { clientId, revokedAt: null }, select: { id: true, userId: true, schoolId: true } });
    const by = { type: 'staff', id: this.staff.staffId } as const;
    for (const grant of live) {
      await this.grants.revokeGrant(grant.id, 'revocation');
      const event = securityEventOf(grantRevoked({ grantId: grant.id, clientId, userId: grant.userId, schoolId: grant.schoolId }, by, reason));
      // The grant is ended either way: a failure to record it is said, not a failure of the command.
      await appendSecurityEventsIn(this.prisma, [event]).catch((error: unknown) =>
        this.staff.warn(`security event ${event.type} ${event.id} not recorded: ${(error as Error).message}`),
      );
    }
    return live.length;
  }

  /** A change of a client and its security event, in one transaction. */
  private changeRecorded<T extends { id: string }>(
    action: IntegrationAction,
    details: Record<string, unknown>,
    change: (tx: Prisma.TransactionClient) => Promise<T>,
  ): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      const changed = await change(tx);
      await appendSecurityEventsIn(tx, [securityEventOf(integrationChanged(changed.id, action, this.staff.staffId, details))]);
      return changed;
    });
  }

  private async find(clientId: string) {
    const row = await this.prisma.client.findUnique({ where: { id: clientId } });
    if (!row) throw new UsageError(`no client with id ${clientId}`);
    return row;
  }

  private async activeGrantCounts(clientIds: string[]): Promise<Map<string, number>> {
    if (clientIds.length === 0) return new Map();
    const groups = await this.prisma.grant.groupBy({
      by: ['clientId'],
      where: { clientId: { in: clientIds }, revokedAt: null },
      _count: { _all: true },
    });
    return new Map(groups.map((group) => [group.clientId, group._count._all]));
  }
}

type ClientRow = Awaited<ReturnType<PrismaClient['client']['findUniqueOrThrow']>>;

function summaryOf(row: ClientRow): Omit<ClientSummary, 'activeGrants'> {
  return {
    clientId: row.id,
    kind: row.kind,
    name: row.name,
    authMethod: row.tokenEndpointAuthMethod,
    redirectUris: row.redirectUris,
    defaultScope: row.scope,
    scopeCeiling: row.scopeCeiling,
    publicKeys: publicKeysOf(row.jwks),
    jwksUri: row.jwksUri,
    dpopBoundAccessTokens: row.dpopBoundAccessTokens,
    createdAt: row.createdAt,
    disabledAt: row.disabledAt,
    firstAuthorizedAt: row.firstAuthorizedAt,
  };
}

/** What staff need to recognise stored keys: each key's kid and type (never more is stored). */
function publicKeysOf(jwks: Prisma.JsonValue | null): ClientSummary['publicKeys'] {
  const keys = (jwks as JSONWebKeySet | null)?.keys;
  if (!Array.isArray(keys)) return null;
  return keys.map((key) => ({ kid: typeof key.kid === 'string' ? key.kid : null, kty: String(key.kty) }));
}
