import { Module } from '@nestjs/common';
import { CurriculumController } from './curriculum.controller';
import { CurriculumRepository } from './curriculum.repository';
import { CurriculumService } from './curriculum.service';

@Module({ controllers: [CurriculumController], providers: [CurriculumRepository, CurriculumService] })
export class CurriculumModule {}
