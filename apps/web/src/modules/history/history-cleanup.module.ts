import { Module } from '@nestjs/common';
import { HistoryCleanupModule } from '@meridian/application';
import { HistoryCleanupController } from './history-cleanup.controller';

/** POST /api/v1/history/cleanup. */
@Module({ imports: [HistoryCleanupModule], controllers: [HistoryCleanupController] })
export class HistoryCleanupApiModule {}
