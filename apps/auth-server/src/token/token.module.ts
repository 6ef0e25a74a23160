import { Module } from '@nestjs/common';
import { RevocationPublisher } from '../events/revocation-publisher';
import { RevocationSubscriber } from '../events/revocation-subscriber';
import { KeysModule } from '../keys/keys.module';
import { ActiveAccessTokens } from './active-access-tokens';
import { GrantRevoker } from './grant-revoker';
import { AuthorizationCodeGrant } from './grants/authorization-code.grant';
import { RefreshTokenGrant } from './grants/refresh-token.grant';
import { TokenController } from './token.controller';
import { TokenIssuer } from './token-issuer';
import { TokenLookup } from './token-lookup';
import { TokenQueries } from './token-queries';
import { TokenService } from './token.service';
import { TokensRepository } from './tokens.repository';

@Module({
  imports: [KeysModule],
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
  ],
  exports: [TokensRepository, TokenLookup, GrantRevoker, RevocationPublisher],
})
export class TokenModule {}
