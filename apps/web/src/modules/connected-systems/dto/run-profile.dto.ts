import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Max, Min, ValidateIf } from 'class-validator';

const RUN_TYPES = ['FullImport', 'DeltaImport', 'FullSynchronisation', 'DeltaSynchronisation', 'Export'];
const FILE_PATH_DOC =
  "Overrides the connector's file path for this run (connectors with a filePath setting, import and export run types only). " +
  'Relative to the connector files root (MERIDIAN_CONNECTOR_FILES_ROOT); absolute paths and ".." are refused.';

export class CreateRunProfileDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Full import', description: 'Unique within the connected system, ignoring case.' })
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({
    enum: RUN_TYPES,
    description: "Run types the connector cannot do with the system's settings are refused (400 naming runType).",
  })
  @IsString()
  runType: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 10000, description: 'Default: the Sync.PageSize service setting (1000 unless changed).' })
  @IsOptional()
  @IsInt({ message: 'pageSize must be a whole number.' })
  @Min(1, { message: 'pageSize must be at least 1.' })
  @Max(10000, { message: 'pageSize must be at most 10000.' })
  pageSize?: number;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1000, example: 'hr/people-delta.csv', description: FILE_PATH_DOC })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Length(1, 1000)
  filePath?: string | null;
}

export class UpdateRunProfileDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ enum: RUN_TYPES })
  @IsOptional()
  @IsString()
  runType?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 10000 })
  @IsOptional()
  @IsInt({ message: 'pageSize must be a whole number.' })
  @Min(1, { message: 'pageSize must be at least 1.' })
  @Max(10000, { message: 'pageSize must be at most 10000.' })
  pageSize?: number;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1000, description: `${FILE_PATH_DOC} null removes the override.` })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Length(1, 1000)
  filePath?: string | null;
}

export class RunProfileDto {
  @ApiProperty() id: number;
  @ApiProperty() connectedSystemId: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: RUN_TYPES }) runType: string;
  @ApiProperty() pageSize: number;
  @ApiPropertyOptional({ nullable: true, type: String }) filePath: string | null;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
}

export class RunProfileExecutionDto {
  @ApiProperty({ format: 'uuid', description: 'The InProgress activity of the run; poll GET /api/v1/activities/{id}.' })
  activityId: string;
}
