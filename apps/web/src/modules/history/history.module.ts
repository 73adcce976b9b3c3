import { Module } from '@nestjs/common';
import { HistoryModule } from '@meridian/application';
import { HistoryController } from './history.controller';
import { ObjectHistoryController } from './object-history.controller';

/** The history endpoints (spec 4.10) and each object's history; named apart from the application's HistoryModule it imports. */
@Module({
  imports: [HistoryModule],
  controllers: [HistoryController, ObjectHistoryController],
})
export class HistoryApiModule {}
