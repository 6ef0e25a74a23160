import { Controller, Get, Header } from '@nestjs/common';
import { DiscoveryService } from './discovery.service';

@Controller('.well-known')
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Get('oauth-authorization-server')
  @Header('cache-control', 'public, max-age=300')
  authorizationServer() {
    return this.discovery.authorizationServerMetadata();
  }

  @Get('openid-configuration')
  @Header('cache-control', 'public, max-age=300')
  openIdConfiguration() {
    return this.discovery.openIdConfiguration();
  }
}
