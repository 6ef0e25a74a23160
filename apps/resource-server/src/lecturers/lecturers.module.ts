import { Module } from '@nestjs/common';
import { LecturersController } from './lecturers.controller';
import { LecturersRepository } from './lecturers.repository';
import { LecturersService } from './lecturers.service';

@Module({ controllers: [LecturersController], providers: [LecturersRepository, LecturersService] })
export class LecturersModule {}
