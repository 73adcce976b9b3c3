import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  MAX_INTERVAL_VALUE,
  MAX_SCHEDULE_STEPS,
  MAX_STEP_TIMEOUT_SECONDS,
  MIN_INTERVAL_VALUE,
  MIN_STEP_TIMEOUT_SECONDS,
  SCHEDULE_INTERVAL_UNITS,
  SCHEDULE_PATTERN_TYPES,
  SCHEDULE_STEP_TYPES,
  SCHEDULE_TRIGGER_TYPES,
  ScheduleIntervalUnit,
  SchedulePatternType,
  ScheduleTriggerType,
  STEP_EXECUTION_MODES,
} from '@meridian/domain';
import { MAX_SCHEDULE_DESCRIPTION_LENGTH, MAX_SCHEDULE_NAME_LENGTH, ScheduleCommand } from '@meridian/application';
import { IsArray, IsBoolean, IsString, MaxLength } from 'class-validator';
import { OneOf, UnlessNull, WhenPresent, WholeNumber } from '../../../http/field.validation';

const DAYS =
  'Comma-separated day numbers, 0 = Sunday to 6 = Saturday, no repeats (e.g. `1,2,3,4,5`). Required for SpecificTimes and Interval Cron schedules.';
const STEPS =
  `The full desired list of steps (at most ${MAX_SCHEDULE_STEPS}); on update it replaces every existing step. ` +
  'Steps sent with the `id` of an existing step keep it (updated in place); steps without `id` are added; existing steps left out are deleted. ' +
  'Indices run from 0 without gaps; steps with the same index run in parallel. Errors name the step: `steps[1].runProfileId`.';

/** A step in a create or update body (spec 2.7, 4.4); checked by the service, errors named `steps[i].field`. */
export class ScheduleStepInputDto {
  @ApiPropertyOptional({
    format: 'uuid',
    nullable: true,
    type: String,
    description: 'The id of an existing step of this schedule, to keep it; absent for a new step.',
  })
  id?: string | null;
  @ApiProperty({
    minimum: 0,
    description: '0-based stage; steps with the same index run in parallel, the next index starts when all of them finished.',
  })
  stepIndex: number;
  @ApiProperty({ enum: SCHEDULE_STEP_TYPES }) stepType: string;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 300,
    description: 'Display name; absent or null on a RunProfile step: "<connected system> — <run profile>".',
  })
  name?: string | null;
  @ApiPropertyOptional({
    enum: STEP_EXECUTION_MODES,
    description: 'Accepted but derived: the first step of an index is Sequential, the others ParallelWithPrevious.',
  })
  executionMode?: string;
  @ApiPropertyOptional({ default: false, description: 'Whether later steps run when this one fails.' }) continueOnFailure?: boolean;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    minimum: MIN_STEP_TIMEOUT_SECONDS,
    maximum: MAX_STEP_TIMEOUT_SECONDS,
    description: 'null: no timeout.',
  })
  timeoutSeconds?: number | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'RunProfile steps (required): an existing connected system.' })
  connectedSystemId?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'RunProfile steps (required): a run profile of that connected system.',
  })
  runProfileId?: number | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description:
      'PowerShell steps (required): a script path relative to the scripts root (MERIDIAN_SCRIPTS_ROOT); no absolute paths, no `..`.',
  })
  scriptPath?: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 4000,
    description: 'PowerShell and Executable steps: the arguments, split like a shell would (quotes) but never run through one.',
  })
  arguments?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Executable steps (required): relative to the scripts root.' })
  executablePath?: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'Executable steps: relative to the scripts root (default: the scripts root).',
  })
  workingDirectory?: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: 'postgres://meridian:*****@db.example.com:5432/hr',
    description:
      'SqlScript steps (required): a postgres://, postgresql://, mysql:// or mariadb:// URL. Sealed at rest; responses mask passwords as `*****`, and a `*****` sent back keeps the stored password.',
  })
  sqlConnectionString?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'SqlScript steps (required): relative to the scripts root.' })
  sqlScriptPath?: string | null;
}

const NAME_MESSAGE = `name is required and must be 1-${MAX_SCHEDULE_NAME_LENGTH} characters.`;
const DESCRIPTION_MESSAGE = `description must be text of at most ${MAX_SCHEDULE_DESCRIPTION_LENGTH} characters, or null.`;
const TRIGGER_TYPE = { other: 'triggerType must be Cron or Manual.', null: 'triggerType must not be null.' };
const PATTERN_TYPE = { other: 'patternType must be SpecificTimes, Interval or Custom.', null: 'patternType must not be null.' };

/**
 * Every field of a schedule body, each checked here for its type, length and allowed values (absent
 * and null as each field allows). The service checks what the pattern and the steps mean (domain
 * rules) and what needs the database.
 */
class ScheduleFieldsDto {
  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String })
  @UnlessNull()
  @IsString({ message: 'description must be text or null.' })
  @MaxLength(MAX_SCHEDULE_DESCRIPTION_LENGTH, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ApiPropertyOptional({ enum: SCHEDULE_PATTERN_TYPES, default: 'SpecificTimes', description: 'Required when triggerType is Cron.' })
  @WhenPresent()
  @OneOf(SCHEDULE_PATTERN_TYPES, PATTERN_TYPE)
  patternType?: SchedulePatternType;

  @ApiPropertyOptional({ nullable: true, type: String, example: '1,2,3,4,5', description: DAYS })
  @UnlessNull()
  @IsString({ message: 'daysOfWeek must be text such as 1,2,3,4,5.' })
  daysOfWeek?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: '09:00,17:30',
    description: 'SpecificTimes: comma-separated 24-hour times `HH:mm` (00:00-23:59), no repeats. Every time fires on every selected day.',
  })
  @UnlessNull()
  @IsString({ message: 'runTimes must be text such as 09:00,17:30.' })
  runTimes?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    minimum: MIN_INTERVAL_VALUE,
    maximum: MAX_INTERVAL_VALUE,
    description: 'Interval: every N minutes or hours.',
  })
  @UnlessNull()
  @WholeNumber(
    MIN_INTERVAL_VALUE,
    MAX_INTERVAL_VALUE,
    `intervalValue must be a whole number from ${MIN_INTERVAL_VALUE} to ${MAX_INTERVAL_VALUE}.`,
  )
  intervalValue?: number | null;

  @ApiPropertyOptional({ nullable: true, enum: SCHEDULE_INTERVAL_UNITS })
  @UnlessNull()
  @OneOf(SCHEDULE_INTERVAL_UNITS, { other: 'intervalUnit must be Minutes or Hours.' })
  intervalUnit?: ScheduleIntervalUnit | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: '08:00',
    description: 'Interval: `HH:mm`, the first run of each selected day.',
  })
  @UnlessNull()
  @IsString({ message: 'intervalWindowStart must be a time HH:mm.' })
  intervalWindowStart?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: '18:00',
    description: 'Interval: `HH:mm`, later than the start; a run falling exactly on it still happens (inclusive).',
  })
  @UnlessNull()
  @IsString({ message: 'intervalWindowEnd must be a time HH:mm.' })
  intervalWindowEnd?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: '0 9 * * 1-5',
    description:
      'Custom only (otherwise generated and read-only; a value sent with another pattern type is ignored): 5-field cron (minute hour day-of-month month day-of-week), ' +
      'several lines separated by `;`. No seconds, no nicknames.',
  })
  @UnlessNull()
  @IsString({ message: 'cronExpression must be text such as 0 9 * * 1-5.' })
  cronExpression?: string | null;

  @ApiPropertyOptional({
    type: String,
    default: 'UTC',
    example: 'Europe/London',
    description: 'IANA time zone the days and times are read in; null resets it to UTC.',
  })
  @UnlessNull()
  @IsString({ message: 'timeZone must be an IANA time zone name such as Europe/London.' })
  timeZone?: string | null;

  @ApiPropertyOptional({ description: 'Create default: false (a new schedule fires only once enabled).' })
  @WhenPresent()
  @IsBoolean({ message: 'isEnabled must be true or false.' })
  isEnabled?: boolean;

  // Each step is checked by the domain's step rules (errors named `steps[i].field`), not here.
  @ApiPropertyOptional({ type: [ScheduleStepInputDto], description: STEPS })
  @WhenPresent()
  @IsArray({ message: 'steps must be an array of steps (an empty array for none).' })
  steps?: unknown[];
}

/** Name and trigger are required; the service trims the name and checks its length with the pattern and steps (one 400 for all). */
export class CreateScheduleDto extends ScheduleFieldsDto implements ScheduleCommand {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'HR weekday sync', description: 'Unique, ignoring case.' })
  @IsString({ message: NAME_MESSAGE })
  name: string;

  @ApiProperty({
    enum: SCHEDULE_TRIGGER_TYPES,
    description: 'Cron: fires by its pattern while enabled. Manual: runs only through POST /api/v1/schedules/{id}/run.',
  })
  @OneOf(SCHEDULE_TRIGGER_TYPES, { ...TRIGGER_TYPE, absent: 'triggerType is required: Cron or Manual.' })
  triggerType: ScheduleTriggerType;
}

/** Partial update: only the fields sent change (steps, when sent, replaces them all). */
export class UpdateScheduleDto extends ScheduleFieldsDto implements ScheduleCommand {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @WhenPresent()
  @IsString({ message: NAME_MESSAGE })
  name?: string;

  @ApiPropertyOptional({ enum: SCHEDULE_TRIGGER_TYPES })
  @WhenPresent()
  @OneOf(SCHEDULE_TRIGGER_TYPES, TRIGGER_TYPE)
  triggerType?: ScheduleTriggerType;
}

export class ScheduleStepDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() stepIndex: number;
  @ApiPropertyOptional({ nullable: true, type: String }) name: string | null;
  @ApiProperty({ enum: STEP_EXECUTION_MODES }) executionMode: string;
  @ApiProperty({ enum: SCHEDULE_STEP_TYPES }) stepType: string;
  @ApiProperty() continueOnFailure: boolean;
  @ApiPropertyOptional({ nullable: true, type: Number }) timeoutSeconds: number | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'RunProfile steps.' }) connectedSystemId: number | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'RunProfile steps; null once the run profile was deleted.' })
  runProfileId: number | null;
  @ApiPropertyOptional({ nullable: true, type: String }) scriptPath: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) arguments: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) executablePath: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) workingDirectory: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: 'postgres://meridian:*****@db.example.com:5432/hr',
    description: 'Passwords masked as `*****`; never in clear.',
  })
  sqlConnectionString: string | null;

  @ApiPropertyOptional({ nullable: true, type: String }) sqlScriptPath: string | null;
}

export class ScheduleDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ enum: SCHEDULE_TRIGGER_TYPES }) triggerType: string;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: '0 9 * * 1-5; 30 17 * * 1-5',
    description:
      'Generated from the pattern (several 5-field lines joined with `; ` when one line cannot express it exactly); the supplied expression for Custom; null while the pattern is incomplete.',
  })
  cronExpression: string | null;

  @ApiProperty({ enum: SCHEDULE_PATTERN_TYPES }) patternType: string;
  @ApiPropertyOptional({ nullable: true, type: String }) daysOfWeek: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) runTimes: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) intervalValue: number | null;
  @ApiPropertyOptional({ nullable: true, enum: SCHEDULE_INTERVAL_UNITS }) intervalUnit: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) intervalWindowStart: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) intervalWindowEnd: string | null;
  @ApiProperty({ example: 'Europe/London', description: 'Canonical IANA name.' }) timeZone: string;
  @ApiProperty() isEnabled: boolean;
  @ApiPropertyOptional({
    nullable: true,
    format: 'date-time',
    type: String,
    description: 'When the scheduler last started a cron run; edits never change it.',
  })
  lastRunTime: string | null;
  @ApiPropertyOptional({
    nullable: true,
    format: 'date-time',
    type: String,
    description: 'Enabled Cron schedules only; null for Manual and disabled ones.',
  })
  nextRunTime: string | null;
  @ApiProperty() stepCount: number;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
  @ApiPropertyOptional({
    nullable: true,
    format: 'uuid',
    type: String,
    description: 'The latest execution (by queuedAt), whatever its status.',
  })
  lastExecutionId: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'Queued, InProgress, Completed, Failed, Cancelled or Paused; null when it never ran.',
  })
  lastExecutionStatus: string | null;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastExecutionCompletedAt: string | null;
}

export class ScheduleDetailDto extends ScheduleDto {
  @ApiProperty({ type: [ScheduleStepDto], description: 'Ordered by stepIndex.' }) steps: ScheduleStepDto[];
}
