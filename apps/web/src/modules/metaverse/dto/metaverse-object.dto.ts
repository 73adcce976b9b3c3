import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { METAVERSE_LIST_COUNT_CAP } from '@meridian/application';
import { AttributeSelection, MetaverseObjectOrigin, MetaverseObjectStatus, AttributePlurality } from '@meridian/domain';
import { MAX_INTEGER_ID, NotBlank, TextOfAtMost, WholeNumberWithin } from '../../../http/field.validation';
import { PageQueryDto } from '../../../http/paging.dto';
import { IsAttributeSelection } from './attribute-selection.validation';

const OBJECT_TYPE_ID_RANGE = 'objectTypeId must be a positive whole number.';

const ATTRIBUTES_EXAMPLE = { 'Display Name': 'Ada Lovelace', 'Subject Identifier': 'ada', Emails: ['ada@example.org'] };

export class MetaverseObjectListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, description: 'Only objects of this type.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'objectTypeId must be a whole number.' })
  @Min(1, { message: 'objectTypeId must be at least 1.' })
  @WholeNumberWithin({ max: MAX_INTEGER_ID }, OBJECT_TYPE_ID_RANGE)
  objectTypeId?: number;

  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'Display name contains this text, ignoring case; a term of one or two letters or digits matches the start of ' +
      'the name or of a word in it (served by a trigram index; see docs/metaverse.md).',
  })
  @IsOptional()
  @IsString({ message: 'search must be text.' })
  @MaxLength(200, { message: 'search must be at most 200 characters.' })
  search?: string;

  @ApiPropertyOptional({
    type: String,
    example: 'Email,Department',
    description:
      'Comma-separated attribute names, or * for every attribute that has a value; ' +
      'returned in the attributes dictionary of each item (multi-valued attributes as arrays; named attributes without a value as null or []).',
  })
  @IsOptional()
  @IsAttributeSelection('attributes must be text.')
  attributes?: AttributeSelection;

  @ApiPropertyOptional({
    example: 'Email',
    description:
      'Filter by this attribute (with filterAttributeValue). Indexed attributes use the lookup index; others are read from every object (slow at scale).',
  })
  @IsOptional()
  @IsString({ message: 'filterAttributeName must be text.' })
  filterAttributeName?: string;

  @ApiPropertyOptional({
    example: 'ada@example.org',
    description: 'Exact, case-insensitive value of filterAttributeName (any value of a multi-valued attribute).',
  })
  @IsOptional()
  @TextOfAtMost(4000, 'filterAttributeValue must be text.', 'filterAttributeValue must be at most 4000 characters.')
  filterAttributeValue?: string;
}

export class MetaverseObjectListItemDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Display Name, else Account Name.' }) displayName: string | null;
  @ApiProperty({ enum: MetaverseObjectStatus }) status: MetaverseObjectStatus;
  @ApiProperty() typeId: number;
  @ApiProperty() typeName: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { Email: 'ada@example.org', Emails: ['ada@example.org'] },
    description: 'Present when attributes were requested.',
  })
  attributes?: Record<string, unknown>;
}

export class MetaverseObjectPageDto {
  @ApiProperty({ type: [MetaverseObjectListItemDto] }) items: MetaverseObjectListItemDto[];
  @ApiProperty({
    description: `Exact up to (page - 1) × pageSize + ${METAVERSE_LIST_COUNT_CAP} matching objects; beyond that, that bound (see totalCountIsExact).`,
  })
  totalCount: number;
  @ApiProperty() page: number;
  @ApiProperty() pageSize: number;
  @ApiProperty() totalPages: number;
  @ApiProperty() hasNextPage: boolean;
  @ApiProperty() hasPreviousPage: boolean;
  @ApiProperty({ description: 'false when counting stopped at the bound: at least totalCount objects match.' }) totalCountIsExact: boolean;
}

export class MetaverseObjectTypeRefDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
}

export class MetaverseAttributeValueDto {
  @ApiProperty({ format: 'uuid', description: 'Derived from object, attribute and position (values have no row of their own).' })
  id: string;
  @ApiProperty() attributeId: number;
  @ApiProperty() attributeName: string;
  @ApiProperty() attributeType: string;
  @ApiProperty({ enum: AttributePlurality }) attributePlurality: AttributePlurality;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'String, Text, Binary (base64) and Decimal (as text) values.' })
  stringValue: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'date-time' }) dateTimeValue: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Integer and LongNumber values.' }) intValue: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' }) guidValue: string | null;
  @ApiPropertyOptional({ nullable: true, type: Boolean }) boolValue: boolean | null;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' }) referenceValueId: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) referenceValueDisplayName: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'null: set in the service (Internal).' }) contributedBySystemId:
    number | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'null: set in the service (Internal), or the system was deleted.' })
  contributedBySystemName: string | null;
}

export class LinkedConnectedSystemObjectDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() connectedSystemId: number;
  @ApiProperty() connectedSystemName: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: "The object's display name, else its external ID." }) displayName:
    string | null;
}

export class MetaverseObjectDetailDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'date-time' }) lastUpdated: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) displayName: string | null;
  @ApiProperty({ enum: MetaverseObjectStatus }) status: MetaverseObjectStatus;
  @ApiProperty({ enum: MetaverseObjectOrigin }) origin: MetaverseObjectOrigin;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'date-time' }) lastConnectorDisconnectedDate: string | null;
  @ApiProperty() isPendingDeletion: boolean;
  @ApiPropertyOptional({ nullable: true, type: String, format: 'date-time' }) deletionEligibleDate: string | null;
  @ApiProperty({ type: MetaverseObjectTypeRefDto }) type: MetaverseObjectTypeRefDto;
  @ApiProperty({ type: [MetaverseAttributeValueDto] }) attributeValues: MetaverseAttributeValueDto[];
  @ApiProperty({ type: [LinkedConnectedSystemObjectDto] }) connectedSystemObjects: LinkedConnectedSystemObjectDto[];
}

export class CreateMetaverseObjectDto {
  @ApiPropertyOptional({
    type: String,
    example: 'User',
    description: 'Object type name (ignoring case). Give objectType or objectTypeId (both: they must agree).',
  })
  @IsOptional()
  @IsString({ message: 'objectType must be text.' })
  @MaxLength(200, { message: 'objectType must be at most 200 characters.' })
  @NotBlank('objectType must be a type name.')
  objectType?: string | null;

  @ApiPropertyOptional({ type: Number, example: 1, description: 'Object type id.' })
  @IsOptional()
  @IsInt({ message: 'objectTypeId must be a whole number.' })
  @Min(1, { message: 'objectTypeId must be at least 1.' })
  @WholeNumberWithin({ max: MAX_INTEGER_ID }, OBJECT_TYPE_ID_RANGE)
  objectTypeId?: number | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: ATTRIBUTES_EXAMPLE,
    description:
      'Attribute name → value (arrays for multi-valued attributes). Numbers and booleans as JSON, DateTime as ISO 8601, Reference as an object id.',
  })
  @IsObject({ message: 'attributes must be an object of attribute name → value.' })
  attributes: Record<string, unknown>;
}

export class UpdateMetaverseObjectDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { 'Job Title': 'Analyst', Nickname: null },
    description:
      'Merged into the object: each named attribute is replaced; null, "" or [] removes it; attributes not named keep their values.',
  })
  @IsObject({ message: 'attributes must be an object of attribute name → value.' })
  attributes: Record<string, unknown>;
}
