import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { ActivityStatus, ExecutionStatus, InitiatedByType, SCHEDULE_STEP_TYPES, STEP_EXECUTION_MODES, StepStatus } from '@meridian/domain';
import {
  CRON_INITIATED_BY,
  EXECUTION_SORT_FIELDS,
  ExecutionSortField,
  EXECUTIONS_DEFAULT_PAGE_SIZE,
  EXECUTIONS_MAX_PAGE_SIZE,
} from '@meridian/application';

/** Query of GET /api/v1/schedule-executions (spec 4.5). */
export class ExecutionListQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only executions of this schedule (an unknown schedule gives an empty page).' })
  @IsOptional()
  @IsUUID('all', { message: 'scheduleId must be a UUID.' })
  scheduleId?: string;

  @ApiPropertyOptional({ default: 1, minimum: 1, description: '1-based page number.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be a whole number.' })
  @Min(1, { message: 'page must be at least 1.' })
  page?: number;

  @ApiPropertyOptional({ default: EXECUTIONS_DEFAULT_PAGE_SIZE, minimum: 1, maximum: EXECUTIONS_MAX_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'pageSize must be a whole number.' })
  @Min(1, { message: 'pageSize must be at least 1.' })
  @Max(EXECUTIONS_MAX_PAGE_SIZE, { message: `pageSize must be at most ${EXECUTIONS_MAX_PAGE_SIZE}.` })
  pageSize?: number;

  @ApiPropertyOptional({ enum: EXECUTION_SORT_FIELDS, default: 'queuedAt' })
  @IsOptional()
  @IsIn(EXECUTION_SORT_FIELDS, { message: `sortBy must be one of ${EXECUTION_SORT_FIELDS.join(', ')}.` })
  sortBy?: ExecutionSortField;

  @ApiPropertyOptional({
    default: true,
    description: 'Newest first by default. Executions without the sorted time (not started, not finished) come last.',
  })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'sortDescending must be true or false.' })
  sortDescending?: boolean;
}

/** A schedule execution as lists show it (spec 2.8 without steps). */
export class ExecutionSummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) scheduleId: string;
  @ApiProperty({ description: "The schedule's name when the execution was created." }) scheduleName: string;
  @ApiProperty({ enum: Object.values(ExecutionStatus) }) status: string;
  @ApiProperty({ description: 'The stepIndex running now (or the last one run).' }) currentStepIndex: number;
  @ApiProperty({ description: 'Number of step indices (stages), not of steps.' }) totalSteps: number;
  @ApiProperty({ format: 'date-time' }) queuedAt: string;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) startedAt: string | null;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) completedAt: string | null;
  @ApiProperty({
    enum: [InitiatedByType.User, InitiatedByType.ApiKey, CRON_INITIATED_BY],
    description: 'NotSet: started by the cron trigger.',
  })
  initiatedByType: string;
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String }) initiatedById: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) initiatedByName: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: "Step 1 'HR import' failed: exit code 3",
    description: 'Why it failed; on a Completed execution, the continueOnFailure steps that failed.',
  })
  errorMessage: string | null;
}

/** A step of an execution (spec 2.8). */
export class ExecutionStepDto {
  @ApiProperty() stepIndex: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: SCHEDULE_STEP_TYPES }) stepType: string;
  @ApiProperty({ enum: STEP_EXECUTION_MODES }) executionMode: string;
  @ApiPropertyOptional({ nullable: true, type: Number }) connectedSystemId: number | null;
  @ApiProperty({ enum: Object.values(StepStatus) }) status: string;
  @ApiPropertyOptional({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The worker task: the run-profile activity of a RunProfile step.',
  })
  taskId: string | null;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) startedAt: string | null;
  @ApiPropertyOptional({ format: 'date-time', nullable: true, type: String }) completedAt: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) errorMessage: string | null;
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, description: 'RunProfile steps: the run-profile activity.' })
  activityId: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    enum: Object.values(ActivityStatus),
  })
  activityStatus: string | null;
}

export class ExecutionDetailDto extends ExecutionSummaryDto {
  @ApiProperty({ type: [ExecutionStepDto], description: 'Ordered by stepIndex; steps with the same index run in parallel.' })
  steps: ExecutionStepDto[];
}
