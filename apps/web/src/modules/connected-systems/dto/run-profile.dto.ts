import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { RUN_TYPES, RunType } from '@meridian/domain';
import { MAX_RUN_PROFILE_PAGE_SIZE } from '@meridian/application';
import { NonBlankText, OneOfIgnoringCase, UnlessNull, WhenPresent } from '../../../http/field.validation';
import { IsConnectorFilePath } from './file-path.validation';

const NAME_MESSAGE = 'name is required and must be 1-200 characters.';
const RUN_TYPE_MESSAGE = `runType is required and must be one of ${RUN_TYPES.join(', ')}.`;
const FILE_PATH_DOC =
  "Overrides the connector's file path for this run (connectors with a filePath setting, import and export run types only). " +
  'Relative to the connector files root (MERIDIAN_CONNECTOR_FILES_ROOT); absolute paths and ".." are refused.';

const PAGE_SIZE_INT = 'pageSize must be a whole number.';
const PAGE_SIZE_MIN = 'pageSize must be at least 1.';
const PAGE_SIZE_MAX = `pageSize must be at most ${MAX_RUN_PROFILE_PAGE_SIZE}.`;
const FILE_PATH_TEXT = 'filePath must be text.';

export class CreateRunProfileDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Full import', description: 'Unique within the connected system, ignoring case.' })
  @NonBlankText(1, 200, NAME_MESSAGE)
  name: string;

  @ApiProperty({
    enum: RunType,
    description: "Run types the connector cannot do with the system's settings are refused (400 naming runType).",
  })
  @OneOfIgnoringCase(RUN_TYPES, RUN_TYPE_MESSAGE)
  runType: RunType;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_RUN_PROFILE_PAGE_SIZE,
    description: 'Default: the Sync.PageSize service setting (1000 unless changed).',
  })
  @WhenPresent()
  @IsInt({ message: PAGE_SIZE_INT })
  @Min(1, { message: PAGE_SIZE_MIN })
  @Max(MAX_RUN_PROFILE_PAGE_SIZE, { message: PAGE_SIZE_MAX })
  pageSize?: number;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1000, example: 'hr/people-delta.csv', description: FILE_PATH_DOC })
  @UnlessNull()
  @IsString({ message: FILE_PATH_TEXT })
  @IsConnectorFilePath()
  filePath?: string | null;
}

export class UpdateRunProfileDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @WhenPresent()
  @NonBlankText(1, 200, NAME_MESSAGE)
  name?: string;

  @ApiPropertyOptional({ enum: RunType })
  @WhenPresent()
  @OneOfIgnoringCase(RUN_TYPES, RUN_TYPE_MESSAGE)
  runType?: RunType;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_RUN_PROFILE_PAGE_SIZE })
  @WhenPresent()
  @IsInt({ message: PAGE_SIZE_INT })
  @Min(1, { message: PAGE_SIZE_MIN })
  @Max(MAX_RUN_PROFILE_PAGE_SIZE, { message: PAGE_SIZE_MAX })
  pageSize?: number;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1000, description: `${FILE_PATH_DOC} null removes the override.` })
  @UnlessNull()
  @IsString({ message: FILE_PATH_TEXT })
  @IsConnectorFilePath()
  filePath?: string | null;
}

export class RunProfileDto {
  @ApiProperty() id: number;
  @ApiProperty() connectedSystemId: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: RunType }) runType: string;
  @ApiProperty() pageSize: number;
  @ApiPropertyOptional({ nullable: true, type: String }) filePath: string | null;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
}

export class RunProfileExecutionDto {
  @ApiProperty({ format: 'uuid', description: 'The InProgress activity of the run; poll GET /api/v1/activities/{id}.' })
  activityId: string;
}
