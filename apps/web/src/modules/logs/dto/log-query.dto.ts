import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  LOG_LEVEL_VIEWS,
  LOG_LIMIT_DEFAULT,
  LOG_LIMIT_MAX,
  LOG_SEARCH_MAX_LENGTH,
  LOG_SERVICES,
  LogService,
  parseLogDay,
  resolveLogLevel,
} from '@meridian/application';
import { Transform, TransformFnParams, Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy, ValidationOptions } from 'class-validator';

const LEVEL_NAMES = LOG_LEVEL_VIEWS.map((l) => l.name);
const LEVEL_HELP = `${LEVEL_NAMES.join(', ')} (or ${LOG_LEVEL_VIEWS.map((l) => l.short).join(', ')})`;

/** `?levels=Error` arrives as a string, `?levels=Error&levels=Warning` as an array; `Error,Warning` is accepted too. */
function toList({ value }: TransformFnParams): unknown {
  if (value === undefined || value === null) return value;
  return (Array.isArray(value) ? value : [value]).flatMap((v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()) : [v]));
}

function IsLogDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLogDate',
      validator: {
        validate: (value) => typeof value === 'string' && parseLogDay(value) !== null,
        defaultMessage: () => 'date must be an ISO 8601 date or datetime, e.g. 2025-03-01 or 2025-03-01T10:00:00Z.',
      },
    },
    options,
  );
}

function IsLogLevel(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLogLevel',
      validator: {
        validate: (value) => resolveLogLevel(value) !== undefined,
        defaultMessage: () => `levels must be level names: ${LEVEL_HELP}.`,
      },
    },
    options,
  );
}

/** Query of GET /api/v1/logs (spec 4.12, limits of §8). */
export class LogQueryDto {
  @ApiPropertyOptional({ enum: LOG_SERVICES, description: 'Only this service; all three when absent.' })
  @IsOptional()
  @IsIn([...LOG_SERVICES], { message: `service must be one of ${LOG_SERVICES.join(', ')}.` })
  service?: LogService;

  @ApiPropertyOptional({
    description:
      'An ISO 8601 date or datetime; the entries of the UTC day that contains it. A datetime without an offset is UTC. Default: today (UTC).',
    example: '2025-03-01',
  })
  @IsOptional()
  @IsLogDate()
  date?: string;

  @ApiPropertyOptional({
    type: [String],
    enum: LEVEL_NAMES,
    isArray: true,
    description: `Repeatable: ?levels=Error&levels=Warning (a comma-separated list works too). Names or short forms, case-insensitive: ${LEVEL_HELP}. Default: all levels.`,
  })
  @IsOptional()
  @Transform(toList)
  @IsArray({ message: 'levels must be a list of level names.' })
  @IsLogLevel({ each: true })
  levels?: string[];

  @ApiPropertyOptional({ maxLength: LOG_SEARCH_MAX_LENGTH, description: 'Case-insensitive text to find in the message or the exception.' })
  @IsOptional()
  @IsString({ message: 'search must be a single text value.' })
  @MaxLength(LOG_SEARCH_MAX_LENGTH, { message: `search must be at most ${LOG_SEARCH_MAX_LENGTH} characters.` })
  search?: string;

  @ApiPropertyOptional({
    type: 'integer',
    default: LOG_LIMIT_DEFAULT,
    minimum: 1,
    maximum: LOG_LIMIT_MAX,
    description: 'Entries to return.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number.' })
  @Min(1, { message: 'limit must be at least 1.' })
  @Max(LOG_LIMIT_MAX, { message: `limit must be at most ${LOG_LIMIT_MAX}.` })
  limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    default: 0,
    minimum: 0,
    description: 'Matching entries to skip (newest first) before the first one returned.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'offset must be a whole number.' })
  @Min(0, { message: 'offset must be at least 0.' })
  offset?: number;
}
