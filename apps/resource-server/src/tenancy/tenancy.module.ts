import { Global, Module } from '@nestjs/common';
import { SchoolDirectory } from './school-directory';
import { ViewerService } from './viewer.service';

@Global()
@Module({ providers: [SchoolDirectory, ViewerService], exports: [ViewerService] })
export class TenancyModule {}
