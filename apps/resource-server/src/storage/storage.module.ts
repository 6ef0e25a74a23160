import { Module } from '@nestjs/common';
import { FileStore } from './file-store';
import { StorageController } from './storage.controller';
import { StorageRepository } from './storage.repository';
import { StorageService } from './storage.service';

@Module({ controllers: [StorageController], providers: [FileStore, StorageRepository, StorageService] })
export class StorageModule {}
