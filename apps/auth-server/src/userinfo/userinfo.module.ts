import { Module } from '@nestjs/common';
import { TokenModule } from '../token/token.module';
import { UsedDpopProofs } from '../token/dpop/used-dpop-proofs.repository';
import { UserInfoController } from './userinfo.controller';
import { UserInfoDpop } from './userinfo-dpop';
import { UserInfoService } from './userinfo.service';

// UsedDpopProofs: the token endpoint's store of used proofs (one table, a statement per call),
// provided here too rather than exported by TokenModule.
@Module({ imports: [TokenModule], controllers: [UserInfoController], providers: [UserInfoService, UserInfoDpop, UsedDpopProofs] })
export class UserInfoModule {}
