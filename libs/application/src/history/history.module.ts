import { Module } from '@nestjs/common';
import { HistoryService } from './history.service';

/** Reading change records: deleted objects, counts per connected system and one object's history (web only). */
@Module({ providers: [HistoryService], exports: [HistoryService] })
export class HistoryModule {}
