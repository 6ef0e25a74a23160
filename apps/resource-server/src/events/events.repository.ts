import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Event, Prisma } from '../generated/prisma/client';

@Injectable()
export class EventsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findEventsPage(schoolId: string, filter: { publicOnly: boolean; startingAfter?: Date }, page: IdPage): Promise<Event[]> {
    return this.prisma.event.findMany({
      where: {
        schoolId,
        ...(filter.publicOnly ? { isPublic: true } : {}),
        ...(filter.startingAfter ? { startsAt: { gte: filter.startingAfter } } : {}),
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findEvent(schoolId: string, id: string, publicOnly: boolean): Promise<Event | null> {
    return this.prisma.event.findFirst({ where: { schoolId, id, ...(publicOnly ? { isPublic: true } : {}) } });
  }

  insertEvent(schoolId: string, data: Omit<Prisma.EventUncheckedCreateInput, 'schoolId'>): Promise<Event> {
    return this.prisma.event.create({ data: { ...data, schoolId } });
  }

  updateEvent(schoolId: string, id: string, data: Prisma.EventUncheckedUpdateInput): Promise<Event> {
    return this.prisma.event.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteEvent(schoolId: string, id: string): Promise<void> {
    await this.prisma.event.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}
