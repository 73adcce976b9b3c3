import { Type as ClassType } from '@nestjs/common';
import { ApiParamOptions, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { HISTORY_PAGE_SIZE_DEFAULT, HISTORY_PAGE_SIZE_MAX } from '@meridian/application';
import { CsoChangeType, InitiatedByType, MvoChangeType } from '@meridian/domain';
import { IsDateTime } from '../../../http/date-time.validation';
import { MAX_INTEGER_ID } from '../../../http/field.validation';
import { PageQueryOf, toQueryInt } from '../../../http/paging.dto';

const SEARCH_MAX_LENGTH = 200;
const DATE_EXAMPLE = '2025-03-01T10:00:00Z';

/** Path parameters as the pipes read them: a positive integer id, a UUID. */
export const CONNECTED_SYSTEM_ID_PARAM: ApiParamOptions = {
  name: 'connectedSystemId',
  schema: { type: 'integer', minimum: 1, maximum: MAX_INTEGER_ID },
};

export const uuidParam = (name: string, description: string): ApiParamOptions => ({
  name,
  description,
  schema: { type: 'string', format: 'uuid' },
});

/** page/pageSize of the history lists (spec §8: pageSize default 50, max 1000). */
export class HistoryPageQueryDto extends PageQueryOf(HISTORY_PAGE_SIZE_DEFAULT, HISTORY_PAGE_SIZE_MAX) {}

/** fromDate/toDate: an inclusive UTC window; fromDate after toDate is refused (400). */
class HistoryWindowQueryDto extends HistoryPageQueryDto {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: DATE_EXAMPLE,
    description: 'Records changed on or after this instant (ISO 8601; no offset means UTC).',
  })
  @IsOptional()
  @IsDateTime(`fromDate must be an ISO 8601 date-time, e.g. ${DATE_EXAMPLE}.`)
  fromDate?: Date;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    example: DATE_EXAMPLE,
    description: 'Records changed on or before this instant, inclusive to its millisecond (ISO 8601; no offset means UTC).',
  })
  @IsOptional()
  @IsDateTime(`toDate must be an ISO 8601 date-time, e.g. ${DATE_EXAMPLE}.`)
  toDate?: Date;
}

export class DeletedCsoQueryDto extends HistoryWindowQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Only objects deleted from this connected system.' })
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'connectedSystemId must be a whole number.' })
  @Min(1, { message: 'connectedSystemId must be at least 1.' })
  @Max(MAX_INTEGER_ID, { message: 'connectedSystemId must be a positive whole number.' })
  connectedSystemId?: number;

  @ApiPropertyOptional({
    maxLength: SEARCH_MAX_LENGTH,
    description: 'External ID contains this text, ignoring case (%, _ and \\ are literal).',
  })
  @IsOptional()
  @IsString({ message: 'externalIdSearch must be text.' })
  @MaxLength(SEARCH_MAX_LENGTH, { message: `externalIdSearch must be at most ${SEARCH_MAX_LENGTH} characters.` })
  externalIdSearch?: string;
}

export class DeletedMvoQueryDto extends HistoryWindowQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Only objects of this metaverse object type.' })
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'objectTypeId must be a whole number.' })
  @Min(1, { message: 'objectTypeId must be at least 1.' })
  @Max(MAX_INTEGER_ID, { message: 'objectTypeId must be a positive whole number.' })
  objectTypeId?: number;

  @ApiPropertyOptional({
    maxLength: SEARCH_MAX_LENGTH,
    description: 'Display name contains this text, ignoring case (%, _ and \\ are literal).',
  })
  @IsOptional()
  @IsString({ message: 'displayNameSearch must be text.' })
  @MaxLength(SEARCH_MAX_LENGTH, { message: `displayNameSearch must be at most ${SEARCH_MAX_LENGTH} characters.` })
  displayNameSearch?: string;
}

const INITIATED_BY = { enum: InitiatedByType, description: 'Who made the change.' };
const INITIATED_BY_NAME = { nullable: true, type: String, description: 'The user, API key or "System".' };

/** Spec 2.13, deleted CSO item. */
export class DeletedCsoDto {
  @ApiProperty({ format: 'uuid', description: 'The deleted connector space object.' }) id: string;
  @ApiProperty({ nullable: true, type: String }) externalId: string | null;
  @ApiProperty({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'As recorded with the deletion, else the current name of the type (null when neither is known).',
  })
  objectTypeName: string | null;
  @ApiProperty({ type: 'integer' }) connectedSystemId: number;
  @ApiProperty({ nullable: true, type: String, description: 'As recorded with the deletion, else the current name of the system.' })
  connectedSystemName: string | null;
  @ApiProperty({ format: 'date-time' }) changeTime: string;
  @ApiProperty(INITIATED_BY) initiatedByType: InitiatedByType;
  @ApiProperty(INITIATED_BY_NAME) initiatedByName: string | null;
}

/** Spec 2.13, deleted MVO item. */
export class DeletedMvoDto {
  @ApiProperty({ format: 'uuid', description: 'The deleted metaverse object.' }) id: string;
  @ApiProperty({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'As recorded with the deletion, else the current name of the type (null when neither is known).',
  })
  objectTypeName: string | null;
  @ApiProperty({ type: 'integer' }) objectTypeId: number;
  @ApiProperty({ format: 'date-time' }) changeTime: string;
  @ApiProperty(INITIATED_BY) initiatedByType: InitiatedByType;
  @ApiProperty(INITIATED_BY_NAME) initiatedByName: string | null;
}

/** Spec 2.13, change record count. */
export class ChangeRecordCountDto {
  @ApiProperty({ type: 'integer' }) connectedSystemId: number;
  @ApiProperty() connectedSystemName: string;
  @ApiProperty({ type: 'integer', description: 'Change records of the connected system, whatever their type.' }) changeRecordCount: number;
}

const VALUES = {
  type: 'array',
  items: {},
  description: 'Values as stored: text, numbers, booleans, date-time text, GUIDs (references: the referenced object id).',
} as const;

export class AttributeChangeDto {
  @ApiProperty({ type: 'integer' }) attributeId: number;
  @ApiProperty({ nullable: true, type: String, description: "The attribute's current name; null when it is gone from the schema." })
  attributeName: string | null;
  @ApiProperty({ ...VALUES, description: `Before the change (empty when added). ${VALUES.description}` }) oldValues: unknown[];
  @ApiProperty({ ...VALUES, description: `After the change (empty when removed). ${VALUES.description}` }) newValues: unknown[];
}

export class MetaverseAttributeChangeDto extends AttributeChangeDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The connected system that contributed the new values (or the removed ones); null when set through the API.',
  })
  contributedBySystemId: number | null;
  @ApiProperty({ nullable: true, type: String, description: "The system's current name; null when there is none or it is gone." })
  contributedBySystemName: string | null;
}

/** Fields every change record has: the run (or API request) that made it. */
class ChangeOriginDto {
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The activity that made the change.' }) activityId:
    string | null;
  @ApiProperty({ type: 'integer', nullable: true }) runProfileId: number | null;
  @ApiProperty({ nullable: true, type: String, description: "The run profile's current name; null when it is gone." })
  runProfileName: string | null;
  @ApiProperty(INITIATED_BY) initiatedByType: InitiatedByType;
  @ApiProperty(INITIATED_BY_NAME) initiatedByName: string | null;
}

export class MetaverseObjectChangeDto extends ChangeOriginDto {
  @ApiProperty({ format: 'uuid', description: 'The change record (UUID v7: time ordered).' }) id: string;
  @ApiProperty({ enum: MvoChangeType }) changeType: MvoChangeType;
  @ApiProperty({ format: 'date-time' }) changeTime: string;
  @ApiProperty({ type: [MetaverseAttributeChangeDto], description: 'Empty for Joined, Disconnected and Deleted.' })
  attributeChanges: MetaverseAttributeChangeDto[];
  @ApiProperty({ type: 'integer', nullable: true, description: 'The connected system whose object caused the change.' })
  connectedSystemId: number | null;
  @ApiProperty({ nullable: true, type: String, description: "The system's current name; null when it is gone." })
  connectedSystemName: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The connector space object that caused the change.' })
  connectedSystemObjectId: string | null;
}

export class ConnectorSpaceObjectChangeDto extends ChangeOriginDto {
  @ApiProperty({ format: 'uuid', description: 'The change record (UUID v7: time ordered).' }) id: string;
  @ApiProperty({ enum: CsoChangeType }) changeType: CsoChangeType;
  @ApiProperty({ format: 'date-time' }) changeTime: string;
  @ApiProperty({ type: [AttributeChangeDto], description: 'Empty for Obsoleted and Deleted.' }) attributeChanges: AttributeChangeDto[];
  @ApiProperty({ type: 'integer' }) connectedSystemId: number;
  @ApiProperty({ nullable: true, type: String, description: "The system's current name (as recorded, once it is gone)." })
  connectedSystemName: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'As the object had it at the change.' }) externalId: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'As the object had it at the change.' }) displayName: string | null;
}

/** The envelope of the history lists: exactly items, totalCount, page and pageSize (spec 2.1). */
export function historyPageOf<T>(item: ClassType<T>, name: string): ClassType<unknown> {
  class HistoryPage {
    @ApiProperty({ type: [item] }) items: T[];
    @ApiProperty({ type: 'integer', description: 'Records that match, on every page.' }) totalCount: number;
    @ApiProperty({ type: 'integer' }) page: number;
    @ApiProperty({ type: 'integer' }) pageSize: number;
  }
  Object.defineProperty(HistoryPage, 'name', { value: name });
  return HistoryPage;
}

export const DeletedCsoPageDto = historyPageOf(DeletedCsoDto, 'DeletedCsoPage');
export const DeletedMvoPageDto = historyPageOf(DeletedMvoDto, 'DeletedMvoPage');
export const MetaverseObjectChangePageDto = historyPageOf(MetaverseObjectChangeDto, 'MetaverseObjectChangePage');
export const ConnectorSpaceObjectChangePageDto = historyPageOf(ConnectorSpaceObjectChangeDto, 'ConnectorSpaceObjectChangePage');
