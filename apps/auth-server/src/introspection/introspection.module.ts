import { Module } from '@nestjs/common';
import { TokenModule } from '../token/token.module';
import { IntrospectionController } from './introspection.controller';
import { IntrospectionService } from './introspection.service';

@Module({ imports: [TokenModule], controllers: [IntrospectionController], providers: [IntrospectionService] })
export class IntrospectionModule {}
