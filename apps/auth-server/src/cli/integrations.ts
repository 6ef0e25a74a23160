import { formatScopes, parseScopeString, scopesOutside, unknownScopes } from '@platform/scopes';
import type { ClientChangedEvent } from '@platform/contracts';
import type { PrismaClient } from '../generated/prisma/client';
import { REDIRECT_URI_PROBLEMS, checkHttpsRedirectUri } from '../clients/redirect-uri';
import { generateClientId, generateOpaqueToken, hashToken } from '../crypto/tokens';
import { SUPPORTED_GRANT_TYPES } from '../token/grants/supported-grant-types';

/** Staff-created confidential clients: "registered integrations". */
export const INTEGRATION_KIND = 'integration';
export type IntegrationAuthMethod = 'client_secret_basic' | 'client_secret_post';
export const INTEGRATION_AUTH_METHODS: readonly IntegrationAuthMethod[] = ['client_secret_basic', 'client_secret_post'];
const MAX_REDIRECT_URIS = 10;

/** A mistake in what staff typed: the CLI prints it and exits with status 2. */
export class UsageError extends Error {}

export interface NewIntegration {
  name: string;
  redirectUris: readonly string[];
  authMethod?: IntegrationAuthMethod;
  /** Scopes the client may never be granted beyond; undefined = no ceiling (consent decides). */
  scopeCeiling?: string;
  /** Asked for when a request names no scope; must fit the ceiling. Empty = the server's least-privilege default. */
  defaultScope?: string;
}

export interface ClientSummary {
  clientId: string;
  kind: string;
  name: string | null;
  authMethod: string;
  redirectUris: string[];
  defaultScope: string;
  scopeCeiling: string | null;
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

function checkScope(option: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const scopes = parseScopeString(value);
  const unknown = unknownScopes(scopes);
  if (unknown.length > 0) throw new UsageError(`${option}: unknown scope ${unknown.join(', ')}`);
  return scopes;
}

export class Integrations {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly grants: GrantEnder,
    private readonly changes: ClientChangeAnnouncer,
  ) {}

  /** Returns the secret once; only its SHA-256 is stored (crypto/tokens.ts, as registration does). */
  async create(input: NewIntegration): Promise<{ client: ClientSummary; clientSecret: string }> {
    const name = input.name.trim();
    if (!name || name.length > 200 || /[\p{Cc}\p{Cf}]/u.test(name)) throw new UsageError('--name: 1 to 200 printable characters');
    if (input.redirectUris.length === 0) throw new UsageError('--redirect-uri: at least one is required');
    if (input.redirectUris.length > MAX_REDIRECT_URIS) throw new UsageError(`--redirect-uri: at most ${MAX_REDIRECT_URIS}`);
    for (const uri of input.redirectUris) {
      const problem = checkIntegrationRedirectUri(uri);
      if (problem) throw new UsageError(`--redirect-uri ${uri} ${problem}`);
    }
    const authMethod = input.authMethod ?? 'client_secret_basic';
    if (!INTEGRATION_AUTH_METHODS.includes(authMethod)) throw new UsageError(`--auth-method: one of ${INTEGRATION_AUTH_METHODS.join(', ')}`);
    const ceiling = checkScope('--scope-ceiling', input.scopeCeiling);
    const defaults = checkScope('--default-scope', input.defaultScope) ?? [];
    if (ceiling && ceiling.length === 0) throw new UsageError('--scope-ceiling: name at least one scope');
    const beyond = ceiling ? scopesOutside(defaults, ceiling) : [];
    if (beyond.length > 0) throw new UsageError(`--default-scope: ${beyond.join(', ')} is beyond the ceiling`);

    const clientSecret = generateOpaqueToken();
    const row = await this.prisma.client.create({
      data: {
        id: generateClientId(),
        kind: INTEGRATION_KIND,
        secretHash: hashToken(clientSecret),
        name,
        applicationType: 'web',
        redirectUris: [...new Set(input.redirectUris)],
        tokenEndpointAuthMethod: authMethod,
        grantTypes: [...SUPPORTED_GRANT_TYPES],
        responseTypes: ['code'],
        scope: formatScopes(defaults),
        scopeCeiling: ceiling ? formatScopes(ceiling) : null,
      },
    });
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
    const clientSecret = generateOpaqueToken();
    await this.prisma.client.update({ where: { id: row.id }, data: { secretHash: hashToken(clientSecret) } });
    await this.changes.announce(row.id, 'secret_rotated');
    return clientSecret;
  }

  /** Disabled: no new authorization nor token request, and every live grant ended now. Returns the number ended. */
  async disable(clientId: string): Promise<number> {
    const row = await this.find(clientId);
    await this.prisma.client.update({ where: { id: row.id }, data: { disabledAt: row.disabledAt ?? new Date() } });
    await this.changes.announce(row.id, 'disabled');
    return this.endGrants(row.id);
  }

  async enable(clientId: string): Promise<void> {
    const row = await this.find(clientId);
    await this.prisma.client.update({ where: { id: row.id }, data: { disabledAt: null } });
    await this.changes.announce(row.id, 'enabled');
  }

  /** Ends every grant (so resource servers hear of it), then deletes the client and, by cascade, its history. */
  async delete(clientId: string): Promise<number> {
    const row = await this.find(clientId);
    const ended = await this.endGrants(row.id);
    await this.prisma.client.delete({ where: { id: row.id } });
    await this.changes.announce(row.id, 'deleted');
    return ended;
  }

  private async endGrants(clientId: string): Promise<number> {
    const live = await this.prisma.grant.findMany({ where: { clientId, revokedAt: null }, select: { id: true } });
    for (const grant of live) await this.grants.revokeGrant(grant.id, 'revocation');
    return live.length;
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
    createdAt: row.createdAt,
    disabledAt: row.disabledAt,
    firstAuthorizedAt: row.firstAuthorizedAt,
  };
}
