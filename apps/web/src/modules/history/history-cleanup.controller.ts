import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { HistoryCleanupResult, HistoryCleanupService, Initiator } from '@meridian/application';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';

/** Spec 2.13, cleanup result. */
class HistoryCleanupResultDto implements HistoryCleanupResult {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Connected system object change records deleted.' }) csoChangesDeleted: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Metaverse object change records deleted.' }) mvoChangesDeleted: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Activities deleted, with their execution items.' }) activitiesDeleted: number;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Time of the oldest record deleted (change time, or creation time of an activity); null when nothing was deleted.',
  })
  oldestRecordDeleted: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Time of the newest record deleted; null when nothing was deleted.',
  })
  newestRecordDeleted: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'Records older than this were deleted (now minus History.RetentionPeriod).',
  })
  cutoffDate: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'History.RetentionPeriod in whole days.' }) retentionPeriodDays: number;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: 'Maximum records deleted per record type in one batch (History.CleanupBatchSize).',
  })
  batchSize: number;
}

@ApiTags('History')
@Controller('api/v1/history')
@AdminEndpoint()
export class HistoryCleanupController {
  constructor(private readonly history: HistoryCleanupService) {}

  @Post('cleanup')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Delete history older than the retention period',
    description:
      'No body. Deletes connected system object and metaverse object change records and finished activities (with their execution items) older than ' +
      'History.RetentionPeriod, oldest first, in batches of at most History.CleanupBatchSize per record type. Records of runs still in progress, and ' +
      'activities of schedule executions still running, are kept. Concurrent cleanups run one after the other. The cleanup is recorded as an ' +
      'activity (targetType HistoryRetentionCleanup) naming the caller and the counts.',
  })
  @ApiOkResponse({ type: HistoryCleanupResultDto })
  @ApiErrors()
  cleanup(@CurrentInitiator() initiator: Initiator): Promise<HistoryCleanupResult> {
    return this.history.cleanup(initiator);
  }
}
