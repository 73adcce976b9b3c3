import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEnum, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { LIST_COUNT_CAP } from '@meridian/application';
import {
  AttributeChangeOperation,
  ConnectorSpaceObjectStatus,
  JoinType,
  PendingExportChangeType,
  PendingExportStatus,
} from '@meridian/domain';
import { PageQueryDto, toQueryInt } from '../../../http/paging.dto';
import { MAX_INTEGER_ID } from '../../../http/field.validation';

const CSO_STATUSES = Object.values(ConnectorSpaceObjectStatus);
const PE_STATUSES = Object.values(PendingExportStatus);
const PE_CHANGE_TYPES = Object.values(PendingExportChangeType);
const toQueryBoolean = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);

export class ConnectorSpaceListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'External ID, secondary external ID or display name starts with this text, ignoring case ' +
      '(% and _ are literal). Bounded, not indexed: see docs/connector-space.md.',
  })
  @IsOptional()
  @IsString({ message: 'search must be text.' })
  @MaxLength(200, { message: 'search must be at most 200 characters.' })
  search?: string;

  @ApiPropertyOptional({ enum: ConnectorSpaceObjectStatus })
  @IsOptional()
  @IsEnum(ConnectorSpaceObjectStatus, { message: `status must be one of ${CSO_STATUSES.join(', ')}.` })
  status?: ConnectorSpaceObjectStatus;

  @ApiPropertyOptional({ minimum: 1, description: "Only objects of this object type of the system (another system's type: 400)." })
  @IsOptional()
  @Transform(toQueryInt)
  @IsInt({ message: 'objectTypeId must be a whole number.' })
  @Min(1, { message: 'objectTypeId must be at least 1.' })
  @Max(MAX_INTEGER_ID, { message: 'objectTypeId must be a positive whole number.' })
  objectTypeId?: number;

  @ApiPropertyOptional({ description: 'true: only objects joined to a metaverse object; false: only objects that are not.' })
  @IsOptional()
  @Transform(toQueryBoolean)
  @IsBoolean({ message: 'joined must be true or false.' })
  joined?: boolean;
}

export class PendingExportListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: PendingExportStatus })
  @IsOptional()
  @IsEnum(PendingExportStatus, { message: `status must be one of ${PE_STATUSES.join(', ')}.` })
  status?: PendingExportStatus;

  @ApiPropertyOptional({ enum: PendingExportChangeType })
  @IsOptional()
  @IsEnum(PendingExportChangeType, { message: `changeType must be one of ${PE_CHANGE_TYPES.join(', ')}.` })
  changeType?: PendingExportChangeType;
}

export class ConnectorSpaceObjectDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'null until a provisioned object is exported.' }) externalId:
    string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) secondaryExternalId: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty() objectTypeId: number;
  @ApiProperty() objectTypeName: string;
  @ApiProperty({ enum: CSO_STATUSES }) status: string;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' }) metaverseObjectId: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, enum: Object.values(JoinType) }) joinType: string | null;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'date-time' }) lastUpdated: string | null;
  @ApiProperty({ description: 'Pending exports of the object, whatever their status.' }) pendingExportCount: number;
}

export class ConnectorSpacePageDto {
  @ApiProperty({ type: [ConnectorSpaceObjectDto] }) items: ConnectorSpaceObjectDto[];
  @ApiProperty({
    description: `Exact up to (page - 1) × pageSize + ${LIST_COUNT_CAP} matching objects; beyond that, that bound (see totalCountIsExact).`,
  })
  totalCount: number;
  @ApiProperty() page: number;
  @ApiProperty() pageSize: number;
  @ApiProperty() totalPages: number;
  @ApiProperty() hasNextPage: boolean;
  @ApiProperty() hasPreviousPage: boolean;
  @ApiProperty({ description: 'false when counting stopped at the bound: at least totalCount objects match.' }) totalCountIsExact: boolean;
}

export class PendingExportAttributeChangeDto {
  @ApiProperty() attributeId: number;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'null when the attribute is no longer in the schema.' }) attributeName:
    string | null;
  @ApiProperty({ enum: Object.values(AttributeChangeOperation) }) operation: string;
  @ApiProperty({ type: 'array', items: {}, description: 'Values to add, replace with or remove.' }) values: unknown[];
  @ApiPropertyOptional({
    nullable: true,
    type: [String],
    format: 'uuid',
    description: "Reference values still given as metaverse object ids; resolved to the target's identifiers at export time.",
  })
  metaverseObjectIds: string[] | null;
}

export class PendingExportDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) connectedSystemObjectId: string;
  @ApiPropertyOptional({ nullable: true, type: String }) externalId: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty({ enum: PE_CHANGE_TYPES }) changeType: string;
  @ApiProperty({ enum: PE_STATUSES }) status: string;
  @ApiProperty({ type: [PendingExportAttributeChangeDto] }) attributeChanges: PendingExportAttributeChangeDto[];
  @ApiProperty({ description: 'Failed export attempts so far.' }) errorCount: number;
  @ApiProperty({ description: 'Confirming imports that did not yet find the exported values.' }) confirmationAttempts: number;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'Earliest time of the next attempt after a failure.',
  })
  nextAttemptAt: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) lastError: string | null;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'date-time' }) lastUpdated: string | null;
}

export class PendingExportPageDto {
  @ApiProperty({ type: [PendingExportDto] }) items: PendingExportDto[];
  @ApiProperty({
    description: `Exact up to (page - 1) × pageSize + ${LIST_COUNT_CAP} matching exports; beyond that, that bound (see totalCountIsExact).`,
  })
  totalCount: number;
  @ApiProperty() page: number;
  @ApiProperty() pageSize: number;
  @ApiProperty() totalPages: number;
  @ApiProperty() hasNextPage: boolean;
  @ApiProperty() hasPreviousPage: boolean;
  @ApiProperty({ description: 'false when counting stopped at the bound.' }) totalCountIsExact: boolean;
}

export class ConnectorSpaceAttributeValuesDto {
  @ApiProperty() attributeId: number;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'null when the attribute is no longer in the schema.' }) attributeName:
    string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: 'String' }) attributeType: string | null;
  @ApiProperty({ type: 'array', items: {}, description: 'The values as imported (references as the raw value, e.g. a DN).' })
  values: unknown[];
}

export class ConnectorSpaceResolvedReferenceDto {
  @ApiProperty() attributeId: number;
  @ApiPropertyOptional({ nullable: true, type: String }) attributeName: string | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'uuid', nullable: true },
    description: 'Connector space objects the values resolved to (null: unresolved).',
  })
  connectedSystemObjectIds: Array<string | null>;
}

export class JoinedMetaverseObjectDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty() typeName: string;
}

export class ConnectorSpaceObjectDetailDto extends ConnectorSpaceObjectDto {
  @ApiProperty({ description: 'Changed since the last synchronisation processed it (picked up by the next delta synchronisation).' })
  syncPending: boolean;
  @ApiProperty({ type: [ConnectorSpaceAttributeValuesDto], description: 'By attribute name.' })
  attributeValues: ConnectorSpaceAttributeValuesDto[];
  @ApiPropertyOptional({
    nullable: true,
    type: [ConnectorSpaceResolvedReferenceDto],
    description: 'null until references have been resolved after an import.',
  })
  resolvedReferences: ConnectorSpaceResolvedReferenceDto[] | null;
  @ApiPropertyOptional({ nullable: true, type: JoinedMetaverseObjectDto }) metaverseObject: JoinedMetaverseObjectDto | null;
  @ApiProperty({ type: [PendingExportDto], description: 'Oldest first.' }) pendingExports: PendingExportDto[];
}
