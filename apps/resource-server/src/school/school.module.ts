import { Module } from '@nestjs/common';
import { SchoolController } from './school.controller';
import { SchoolRepository } from './school.repository';
import { SchoolService } from './school.service';

@Module({ controllers: [SchoolController], providers: [SchoolRepository, SchoolService] })
export class SchoolModule {}
