import { Injectable } from '@nestjs/common';
import { formatScopes } from '@platform/scopes';
import { PrismaService } from '../database/prisma.service';

/** One app the user has authorized, with what its live grants and remembered consent add up to. */
export interface ConnectedApp {
  clientId: string;
  name: string | null;
  kind: string;
  /** Union of the scopes of its live grants and of its remembered consent, each once. */
  scopes: string[];
  /** The first approval of the remembered consent, else the oldest live grant. */
  firstAuthorizedAt: Date;
  /** The last token issued to it for this user (access token or refresh), else the approval. */
  lastUsedAt: Date;
  /** What the remembered consent keeps of the browser that last approved it ("Chrome on macOS"). */
  device: string | null;
  /** And of its network ("203.0.113.0/24"). */
  network: string | null;
  /** Until when it may come back for these scopes without asking; null when nothing is remembered. */
  rememberedUntil: Date | null;
  /** The client's redirect URIs and authentication method: whether remembered consent may answer at all. */
  redirectUris: string[];
  tokenEndpointAuthMethod: string;
}

interface ConsentRow {
  clientId: string;
  scope: string;
  grantedAt: Date;
  approvedAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
  device: string | null;
  network: string | null;
}

@Injectable()
export class ConnectedAppsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The user's live grants and remembered consents, grouped by client. A grant is live while it
   * is not revoked and something of it can still be used: an unconsumed code, an access token or
   * a refresh token that has neither expired nor been revoked. A remembered consent counts until
   * it lapses: an app that may come back without asking is listed, so that it can be forgotten.
   */
  async findConnectedApps(userId: string, now: Date): Promise<ConnectedApp[]> {
    const usable = { revokedAt: null, expiresAt: { gt: now } };
    const consents: ConsentRow[] = await this.prisma.consent.findMany({
      where: { userId, expiresAt: { gt: now } },
      select: { clientId: true, scope: true, grantedAt: true, approvedAt: true, lastUsedAt: true, expiresAt: true, device: true, network: true },
      take: 500,
    });
    const grants = await this.prisma.grant.findMany({
      where: {
        userId,
        revokedAt: null,
        OR: [
          { accessTokens: { some: usable } },
          { refreshTokens: { some: usable } },
          { codes: { some: { consumedAt: null, expiresAt: { gt: now } } } },
        ],
      },
      select: { id: true, scope: true, createdAt: true, clientId: true },
      orderBy: { createdAt: 'asc' },
      take: 500,
    });
    if (grants.length === 0 && consents.length === 0) return [];
    const clients = await this.prisma.client.findMany({
      where: { id: { in: [...new Set([...grants.map((grant) => grant.clientId), ...consents.map((consent) => consent.clientId)])] } },
      select: { id: true, name: true, kind: true, redirectUris: true, tokenEndpointAuthMethod: true },
    });
    const clientById = new Map(clients.map((client) => [client.id, client]));
    const lastTokens = await this.prisma.accessToken.groupBy({
      by: ['grantId'],
      where: { grantId: { in: grants.map((grant) => grant.id) } },
      _max: { issuedAt: true },
    });
    const lastUse = new Map(lastTokens.map((row) => [row.grantId, row._max.issuedAt]));

    const apps = new Map<string, ConnectedApp & { scopeSet: Set<string> }>();
    const appOf = (clientId: string, first: Date, used: Date) => {
      let app = apps.get(clientId);
      const client = clientById.get(clientId);
      if (!app && client) {
        app = {
          clientId,
          name: client.name,
          kind: client.kind,
          scopes: [],
          scopeSet: new Set(),
          firstAuthorizedAt: first,
          lastUsedAt: used,
          device: null,
          network: null,
          rememberedUntil: null,
          redirectUris: client.redirectUris,
          tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
        };
        apps.set(clientId, app);
      }
      return app;
    };
    for (const grant of grants) {
      const used = lastUse.get(grant.id) ?? grant.createdAt;
      const app = appOf(grant.clientId, grant.createdAt, used);
      if (!app) continue;
      for (const scope of grant.scope.split(' ').filter(Boolean)) app.scopeSet.add(scope);
      if (used > app.lastUsedAt) app.lastUsedAt = used;
    }
    for (const consent of consents) {
      const used = consent.lastUsedAt && consent.lastUsedAt > consent.approvedAt ? consent.lastUsedAt : consent.approvedAt;
      const app = appOf(consent.clientId, consent.grantedAt, used);
      if (!app) continue;
      for (const scope of consent.scope.split(' ').filter(Boolean)) app.scopeSet.add(scope);
      if (consent.grantedAt < app.firstAuthorizedAt) app.firstAuthorizedAt = consent.grantedAt;
      if (used > app.lastUsedAt) app.lastUsedAt = used;
      Object.assign(app, { device: consent.device, network: consent.network, rememberedUntil: consent.expiresAt });
    }
    return [...apps.values()]
      .map(({ scopeSet, ...app }) => ({ ...app, scopes: formatScopes(scopeSet).split(' ').filter(Boolean) }))
      .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime());
  }

  /**
   * Forgets the user's remembered consent for the client: its next authorization asks again.
   * Only this user's row: another user's consent cannot be named here.
   */
  async forgetConsent(userId: string, clientId: string): Promise<void> {
    await this.prisma.consent.deleteMany({ where: { userId, clientId } });
  }

  /** The ids of the user's grants to this client that are not revoked yet. */
  async findOpenGrantIds(userId: string, clientId: string): Promise<string[]> {
    const grants = await this.prisma.grant.findMany({ where: { userId, clientId, revokedAt: null }, select: { id: true } });
    return grants.map((grant) => grant.id);
  }
}
