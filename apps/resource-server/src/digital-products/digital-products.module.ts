import { Module } from '@nestjs/common';
import { DigitalProductsController } from './digital-products.controller';
import { DigitalProductsRepository } from './digital-products.repository';
import { DigitalProductsService } from './digital-products.service';

@Module({ controllers: [DigitalProductsController], providers: [DigitalProductsRepository, DigitalProductsService] })
export class DigitalProductsModule {}
