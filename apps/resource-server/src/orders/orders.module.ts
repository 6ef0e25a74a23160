import { Module } from '@nestjs/common';
import { OrdersController } from './orders.controller';
import { OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';

@Module({ controllers: [OrdersController], providers: [OrdersRepository, OrdersService] })
export class OrdersModule {}
