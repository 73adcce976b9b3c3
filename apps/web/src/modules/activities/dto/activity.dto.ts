import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ACTIVITY_SORT_KEYS, ActivitySortKey } from '@meridian/application';
import { ActivityStatus, ExecutionErrorType, InitiatedByType, SORT_DIRECTIONS, SortDirection, SyncOutcome } from '@meridian/domain';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../../http/paging.dto';

export class ActivityListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Filters by target name or type (contains, case-insensitive).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ enum: ACTIVITY_SORT_KEYS, default: 'created' })
  @IsOptional()
  @IsIn(ACTIVITY_SORT_KEYS, { message: `sortBy must be one of ${ACTIVITY_SORT_KEYS.join(', ')}.` })
  sortBy?: ActivitySortKey;

  @ApiPropertyOptional({ enum: SORT_DIRECTIONS, default: 'asc' })
  @IsOptional()
  @IsIn(SORT_DIRECTIONS, { message: `sortDirection must be ${SORT_DIRECTIONS.join(' or ')}.` })
  sortDirection?: SortDirection;
}

export class ActivitySummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String }) parentActivityId: string | null;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) executed: string | null;
  @ApiProperty({ enum: Object.values(ActivityStatus) }) status: string;
  @ApiProperty({ example: 'ServiceSetting' }) targetType: string;
  @ApiProperty({ example: 'Update' }) targetOperationType: string;
  @ApiPropertyOptional({ nullable: true, type: String }) targetName: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) targetContext: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) message: string | null;
  @ApiProperty({ enum: Object.values(InitiatedByType) }) initiatedByType: string;
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String }) initiatedById: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) initiatedByName: string | null;
  @ApiProperty() objectsToProcess: number;
  @ApiProperty() objectsProcessed: number;
  @ApiPropertyOptional({ nullable: true, type: String, example: '00:00:12' }) executionTime: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '00:00:13' }) totalActivityTime: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) connectedSystemRunType: string | null;
  @ApiProperty() childActivityCount: number;
  @ApiProperty() totalAdded: number;
  @ApiProperty() totalUpdated: number;
  @ApiProperty() totalDeleted: number;
  @ApiProperty() totalErrors: number;
}

export class ActivityDetailDto extends ActivitySummaryDto {
  @ApiProperty() totalProjected: number;
  @ApiProperty() totalJoined: number;
  @ApiProperty() totalAttributeFlows: number;
  @ApiProperty() totalDisconnected: number;
  @ApiProperty() totalProvisioned: number;
  @ApiProperty() totalExported: number;
  @ApiProperty() totalDeprovisioned: number;
  @ApiProperty() totalPendingExports: number;
  @ApiPropertyOptional({ nullable: true, type: String }) warningMessage: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) errorMessage: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) errorStackTrace: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) connectedSystemId: number | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) connectedSystemRunProfileId: number | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) syncRuleId: number | null;
  @ApiPropertyOptional({ nullable: true, format: 'uuid', type: String }) metaverseObjectId: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Id of the resource acted on.' }) targetId: string | null;
  @ApiPropertyOptional({ nullable: true, type: 'object', additionalProperties: true, description: 'What a configuration change did.' })
  details: Record<string, unknown> | null;
  @ApiPropertyOptional({ nullable: true, type: 'object', additionalProperties: true }) executionStats: Record<string, unknown> | null;
}

export class ExecutionItemDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ nullable: true, type: String }) externalIdValue: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) connectedSystemObjectType: string | null;
  @ApiProperty({ example: 'Add' }) objectChangeType: string;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'DuplicateObject' }) errorType: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) errorMessage: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'Projected:1,AttributeFlow:12' }) outcomeSummary: string | null;
}

export class ActivityRunPhaseDto {
  @ApiProperty({ example: 'Import' }) name: string;
  @ApiProperty({ example: 12.4 }) seconds: number;
}

export class ActivityRunTotalsDto {
  @ApiProperty() totalAdded: number;
  @ApiProperty() totalUpdated: number;
  @ApiProperty() totalDeleted: number;
  @ApiProperty() totalProjected: number;
  @ApiProperty() totalJoined: number;
  @ApiProperty() totalAttributeFlows: number;
  @ApiProperty() totalDisconnected: number;
  @ApiProperty() totalProvisioned: number;
  @ApiProperty() totalExported: number;
  @ApiProperty() totalDeprovisioned: number;
  @ApiProperty() totalPendingExports: number;
  @ApiProperty() totalErrors: number;
}

/** GET /activities/{id}/stats (docs/api.md "Activities"). */
export class ActivityRunStatsDto {
  @ApiProperty({ format: 'uuid' }) activityId: string;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'FullImport', description: 'connectedSystemRunType of the activity.' })
  runType: string | null;
  @ApiProperty({ enum: Object.values(ActivityStatus) }) status: string;
  @ApiProperty() objectsToProcess: number;
  @ApiProperty() objectsProcessed: number;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Pages processed, as the runner reported it (null until it does).' })
  pages: number | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Throughput reported by the runner (null until it does).' })
  objectsPerSecond: number | null;
  @ApiProperty({
    type: [ActivityRunPhaseDto],
    description: 'Time spent per phase, in the order the runner reported them (empty until it does).',
  })
  phases: ActivityRunPhaseDto[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { [SyncOutcome.Projected]: 120, [SyncOutcome.AttributeFlow]: 1440 },
    description:
      'Sum of the Outcome:count pairs of every execution item by outcome (for AttributeFlow the count is attributes, not objects).',
  })
  outcomes: Record<string, number>;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'integer' },
    example: { [ExecutionErrorType.DuplicateObject]: 2 },
    description: 'Execution items by errorType.',
  })
  errors: Record<string, number>;
  @ApiProperty({ type: ActivityRunTotalsDto }) totals: ActivityRunTotalsDto;
}
