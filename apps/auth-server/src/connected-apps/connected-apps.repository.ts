import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

/** One app the user has authorized, with what its live grants add up to. */
export interface ConnectedApp {
  clientId: string;
  name: string | null;
  kind: string;
  /** Union of the scopes of its live grants, each once. */
  scopes: string[];
  firstAuthorizedAt: Date;
  /** The last token issued to it for this user (access token or refresh), else the approval. */
  lastUsedAt: Date;
}

@Injectable()
export class ConnectedAppsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The user's live grants, grouped by client. A grant is live while it is not revoked and
   * something of it can still be used: an unconsumed code, an access token or a refresh
   * token that has neither expired nor been revoked.
   */
  async findConnectedApps(userId: string, now: Date): Promise<ConnectedApp[]> {
    const usable = { revokedAt: null, expiresAt: { gt: now } };
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
      select: { id: true, scope: true, createdAt: true, client: { select: { id: true, name: true, kind: true } } },
      orderBy: { createdAt: 'asc' },
      take: 500,
    });
    if (grants.length === 0) return [];
    const lastTokens = await this.prisma.accessToken.groupBy({
      by: ['grantId'],
      where: { grantId: { in: grants.map((grant) => grant.id) } },
      _max: { issuedAt: true },
    });
    const lastUse = new Map(lastTokens.map((row) => [row.grantId, row._max.issuedAt]));

    const apps = new Map<string, ConnectedApp & { scopeSet: Set<string> }>();
    for (const grant of grants) {
      const used = lastUse.get(grant.id) ?? grant.createdAt;
      const app = apps.get(grant.client.id);
      if (!app) {
        apps.set(grant.client.id, {
          clientId: grant.client.id,
          name: grant.client.name,
          kind: grant.client.kind,
          scopes: [],
          scopeSet: new Set(grant.scope.split(' ').filter(Boolean)),
          firstAuthorizedAt: grant.createdAt,
          lastUsedAt: used,
        });
        continue;
      }
      for (const scope of grant.scope.split(' ').filter(Boolean)) app.scopeSet.add(scope);
      if (used > app.lastUsedAt) app.lastUsedAt = used;
    }
    return [...apps.values()]
      .map(({ scopeSet, ...app }) => ({ ...app, scopes: [...scopeSet] }))
      .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime());
  }

  /** The ids of the user's grants to this client that are not revoked yet. */
  async findOpenGrantIds(userId: string, clientId: string): Promise<string[]> {
    const grants = await this.prisma.grant.findMany({ where: { userId, clientId, revokedAt: null }, select: { id: true } });
    return grants.map((grant) => grant.id);
  }
}
