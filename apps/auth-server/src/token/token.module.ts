import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { RevocationPublisher } from '../events/revocation-publisher';
import { RevocationSubscriber } from '../events/revocation-subscriber';
import { KeysModule } from '../keys/keys.module';
import { ActiveAccessTokens } from './active-access-tokens';
import { Clock } from './clock';
import { GrantRevoker } from './grant-revoker';
import { AuthorizationCodeGrant } from './grants/authorization-code.grant';
import { RefreshTokenGrant } from './grants/refresh-token.grant';
import { TokenController } from './token.controller';
import { TokenEndpointLimits } from './token-endpoint-limits';
import { TokenEndpointMetrics } from './token-endpoint-metrics';
import { TokenIssuer } from './token-issuer';
import { TokenLookup } from './token-lookup';
import { TokenQueries } from './token-queries';
import { TokenService } from './token.service';
import { TokensRepository } from './tokens.repository';

@Module({
  // AccountsModule: the counters' store (RATE_LIMIT_STORE), shared with the login backoff.
  imports: [KeysModule, AccountsModule],
  controllers: [TokenController],
  providers: [
    TokenService,
    TokenIssuer,
    TokensRepository,
    TokenQueries,
    TokenLookup,
    ActiveAccessTokens,
    RevocationSubscriber,
    GrantRevoker,
    RevocationPublisher,
    AuthorizationCodeGrant,
    RefreshTokenGrant,
    Clock,
    TokenEndpointLimits,
    TokenEndpointMetrics,
  ],
  exports: [TokensRepository, TokenLookup, GrantRevoker, RevocationPublisher, TokenEndpointLimits],
})
export class TokenModule {}
