import { Injectable } from '@nestjs/common';
import type { TokenEndpointAuthMethod } from '@platform/contracts';
import { PrismaService } from '../database/prisma.service';

export interface RegisteredClient {
  id: string;
  secretHash: string | null;
  name: string | null;
  applicationType: string;
  redirectUris: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  grantTypes: string[];
  responseTypes: string[];
  scope: string;
  createdAt: Date;
}

export type NewClient = Omit<RegisteredClient, 'createdAt'>;

@Injectable()
export class ClientsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insertClient(client: NewClient): Promise<RegisteredClient> {
    return (await this.prisma.client.create({ data: client })) as RegisteredClient;
  }

  async findClientById(id: string): Promise<RegisteredClient | null> {
    // Client ids are bounded printable strings (RFC 6749 Appendix A.1, VSCHAR); nothing else can exist.
    if (!/^[\x20-\x7e]{1,64}$/.test(id)) return null;
    return (await this.prisma.client.findUnique({ where: { id } })) as RegisteredClient | null;
  }
}
