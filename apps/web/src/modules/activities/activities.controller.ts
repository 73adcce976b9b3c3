import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ActivitiesService } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors, pagedOf } from '../../http/openapi';
import { PageQueryDto } from '../../http/paging.dto';

class ActivityListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Filters by target name or type (contains, case-insensitive).' })
  @IsOptional() @IsString() @MaxLength(200)
  search?: string;

  @ApiPropertyOptional({ enum: ['created', 'executed', 'status', 'type', 'target'], default: 'created' })
  @IsOptional() @IsIn(['created', 'executed', 'status', 'type', 'target'], { message: 'sortBy must be one of created, executed, status, type, target.' })
  sortBy?: string;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'asc' })
  @IsOptional() @IsIn(['asc', 'desc'], { message: 'sortDirection must be asc or desc.' })
  sortDirection?: string;
}

class ActivitySummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String }) parentActivityId: string | null;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) executed: string | null;
  @ApiProperty({ enum: ['InProgress', 'Complete', 'CompleteWithWarning', 'CompleteWithError', 'FailedWithError', 'Cancelled'] }) status: string;
  @ApiProperty({ example: 'ServiceSetting' }) targetType: string;
  @ApiProperty({ example: 'Update' }) targetOperationType: string;
  @ApiPropertyOptional({ nullable: true, type: String }) targetName: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) targetContext: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) message: string | null;
  @ApiProperty({ enum: ['User', 'ApiKey', 'System'] }) initiatedByType: string;
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

class ActivityDetailDto extends ActivitySummaryDto {
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
  @ApiPropertyOptional({ nullable: true, type: 'object', additionalProperties: true, description: 'What a configuration change did.' }) details: Record<string, unknown> | null;
  @ApiPropertyOptional({ nullable: true, type: 'object', additionalProperties: true }) executionStats: Record<string, unknown> | null;
}

class ExecutionItemDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ nullable: true, type: String }) externalIdValue: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) connectedSystemObjectType: string | null;
  @ApiProperty({ example: 'Add' }) objectChangeType: string;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'DuplicateObject' }) errorType: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) errorMessage: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'Projected:1,AttributeFlow:12' }) outcomeSummary: string | null;
}

@ApiTags('Activities')
@Controller('api/v1/activities')
@AdminEndpoint()
export class ActivitiesController {
  constructor(private readonly activities: ActivitiesService) {}

  @Get()
  @ApiOkResponse({ type: pagedOf(ActivitySummaryDto, 'PagedActivities') })
  @ApiErrors(400)
  list(@Query() query: ActivityListQueryDto) {
    return this.activities.list(query);
  }

  @Get(':id')
  @ApiOkResponse({ type: ActivityDetailDto })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.activities.get(id);
  }

  @Get(':id/stats')
  @ApiOkResponse({ description: 'Run-profile execution statistics: the counters and progress of the activity.', schema: { type: 'object', additionalProperties: true } })
  @ApiErrors(400, 404)
  stats(@Param('id', UuidPipe) id: string) {
    return this.activities.stats(id);
  }

  @Get(':id/items')
  @ApiOkResponse({ type: pagedOf(ExecutionItemDto, 'PagedExecutionItems') })
  @ApiErrors(400, 404)
  items(@Param('id', UuidPipe) id: string, @Query() query: PageQueryDto) {
    return this.activities.items(id, query);
  }

  @Get(':id/children')
  @ApiOkResponse({ type: [ActivitySummaryDto] })
  @ApiErrors(400, 404)
  children(@Param('id', UuidPipe) id: string) {
    return this.activities.children(id);
  }
}
