import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

export interface RegisteredClient {
  id: string;
  secretHash: string | null;
  name: string | null;
  applicationType: string;
  redirectUris: string[];
  tokenEndpointAuthMethod: 'none' | 'client_secret_post';
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
    // Client ids are bounded random strings; anything longer cannot exist.
    if (id.length > 64) return null;
    return (await this.prisma.client.findUnique({ where: { id } })) as RegisteredClient | null;
  }
}
