import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { parseTimeSpan, SettingKeys } from '@meridian/domain';
import { BulkSession, RunStore } from '@meridian/persistence';
import { Logger, LOGGER } from '@meridian/platform';
import { DataSource } from 'typeorm';
import { SettingsService } from '../settings/settings.service';
import { PendingDeletionsProcessor } from './pending-deletions.processor';

export interface HousekeepingResult {
  reapedActivityIds: string[];
  deletedMetaverseObjects: number;
}

/**
 * Repeatable maintenance (a worker job every 30 s): ends runs whose worker stopped heart-beating for
 * longer than `Worker.StaleTaskTimeout` (releasing their locks), then deletes metaverse objects whose
 * deletion grace period has passed.
 */
@Injectable()
export class HousekeepingService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly settings: SettingsService,
    private readonly pendingDeletions: PendingDeletionsProcessor,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(): Promise<HousekeepingResult> {
    const reapedActivityIds = await this.reap();
    const deletedMetaverseObjects = await this.pendingDeletions.deleteExpired();
    return { reapedActivityIds, deletedMetaverseObjects };
  }

  /** Fails the activities of dead workers; returns their ids. */
  async reap(): Promise<string[]> {
    const timeoutMs = parseTimeSpan(String(await this.settings.effective(SettingKeys.WorkerStaleTaskTimeout))) ?? 300_000;
    const ids = await BulkSession.with(this.ds, (s) => new RunStore(s).reapStale(Math.max(1, Math.round(timeoutMs / 1000))));
    for (const id of ids) {
      this.logger.log({
        level: 'warning',
        message: `Activity ${id} failed: its worker stopped reporting for more than ${Math.round(timeoutMs / 1000)} s.`,
        activityId: id,
      });
    }
    return ids;
  }
}
