import { Controller, Get, Header } from '@nestjs/common';
import { OAUTH_PATHS } from '@platform/contracts';
import { ApiAuthorizationServerMetadataEndpoint, ApiOpenIdConfigurationEndpoint } from '../openapi/api-endpoints';
import { DiscoveryService } from './discovery.service';

@Controller()
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Get(OAUTH_PATHS.authorizationServerMetadata)
  @ApiAuthorizationServerMetadataEndpoint()
  @Header('cache-control', 'public, max-age=300')
  authorizationServer() {
    return this.discovery.authorizationServerMetadata();
  }

  @Get(OAUTH_PATHS.openIdConfiguration)
  @ApiOpenIdConfigurationEndpoint()
  @Header('cache-control', 'public, max-age=300')
  openIdConfiguration() {
    return this.discovery.openIdConfiguration();
  }
}
