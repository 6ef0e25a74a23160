import { Module } from '@nestjs/common';
import { TokenModule } from '../token/token.module';
import { UserInfoController } from './userinfo.controller';
import { UserInfoService } from './userinfo.service';

@Module({ imports: [TokenModule], controllers: [UserInfoController], providers: [UserInfoService] })
export class UserInfoModule {}
