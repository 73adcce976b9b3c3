import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { LOG_LEVEL_VIEWS, LOG_SERVICES } from '@meridian/application';

/** A log entry (spec 2.16). */
export class LogEntryDto {
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiProperty({ enum: LOG_LEVEL_VIEWS.map((l) => l.name), example: 'Information' }) level: string;
  @ApiProperty({ enum: LOG_LEVEL_VIEWS.map((l) => l.short), example: 'INF' }) levelShort: string;
  @ApiProperty() message: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Stack trace or error text.' }) exception: string | null;
  @ApiProperty({ enum: LOG_SERVICES }) service: string;
  @ApiPropertyOptional({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    description: 'Structured properties of the entry; `correlationId` holds the id of the request or job that wrote it.',
    example: { correlationId: '6f1c0a3e-1d2b-4c55-9d61-2b0f5a7e9c10', durationMs: 12.5 },
  })
  properties: Record<string, unknown> | null;
}

/** A log file (spec 2.16). */
export class LogFileDto {
  @ApiProperty({ example: 'web-2025-03-01.log.1' }) fileName: string;
  @ApiProperty({ enum: LOG_SERVICES }) service: string;
  @ApiProperty({ format: 'date-time', description: 'Midnight UTC of the day the file holds.', example: '2025-03-01T00:00:00.000Z' })
  date: string;
  @ApiProperty({ example: 52428800 }) sizeBytes: number;
  @ApiProperty({ example: '50.0 MB' }) sizeFormatted: string;
}

export class LogLevelDto {
  @ApiProperty({ enum: LOG_LEVEL_VIEWS.map((l) => l.name) }) name: string;
  @ApiProperty({ enum: LOG_LEVEL_VIEWS.map((l) => l.short) }) short: string;
}
