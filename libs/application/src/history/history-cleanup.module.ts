import { Module } from '@nestjs/common';
import { HistoryCleanupService } from './history-cleanup.service';

/** History retention: the cleanup the API offers and a worker runs daily, and a deleted system's change history. */
@Module({ providers: [HistoryCleanupService], exports: [HistoryCleanupService] })
export class HistoryCleanupModule {}
