import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { RevocationPublisher } from '../events/revocation-publisher';
import { KeysModule } from '../keys/keys.module';
import { ActiveAccessTokens } from './active-access-tokens';
import { Clock } from '../common/clock';
import { TokenEndpointDpop } from './dpop/token-endpoint-dpop';
import { UsedDpopProofs } from './dpop/used-dpop-proofs.repository';
import { GrantRevoker } from './grant-revoker';
import { AuthorizationCodeGrant } from './grants/authorization-code.grant';
import { AUTHORIZATION_CODE_STORAGE } from './grants/authorization-code.storage';
import { RefreshTokenGrant } from './grants/refresh-token.grant';
import { REFRESH_TOKEN_STORAGE } from './grants/refresh-token.storage';
import { RevocationSubscriber } from './revocation-subscriber';
import { TokenController } from './token.controller';
import { TokenEndpointLimits } from './token-endpoint-limits';
import { TokenEndpointMetrics } from './token-endpoint-metrics';
import { TokenIssuer } from './token-issuer';
import { TokenLookup } from './token-lookup';
import { TokenService } from './token.service';
import { TokenStore } from './token-store';
import { TokensRepository } from './tokens.repository';

@Module({
  // AccountsModule: the counters' store (RATE_LIMIT_STORE), shared with the login backoff.
  imports: [KeysModule, AccountsModule],
  controllers: [TokenController],
  providers: [
    TokenService,
    TokenIssuer,
    TokenStore,
    // Each grant sees its own narrow storage; one PostgreSQL implementation serves both.
    { provide: AUTHORIZATION_CODE_STORAGE, useExisting: TokenStore },
    { provide: REFRESH_TOKEN_STORAGE, useExisting: TokenStore },
    TokensRepository,
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
    TokenEndpointDpop,
    UsedDpopProofs,
  ],
  exports: [TokensRepository, TokenLookup, GrantRevoker, RevocationPublisher, TokenEndpointLimits],
})
export class TokenModule {}
