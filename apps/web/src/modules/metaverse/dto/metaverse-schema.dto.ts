import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsEnum, IsInt, IsOptional, Min, ValidationArguments } from 'class-validator';
import {
  AttributeDataType,
  AttributePlurality,
  DeletionRule,
  DeletionTriggerMode,
  MAX_DELETION_GRACE_PERIOD_DAYS,
  MAX_SCHEMA_DESCRIPTION_LENGTH,
  parseDeletionGracePeriod,
  parseDeletionRule,
  parseDeletionTriggerMode,
} from '@meridian/domain';
import { ReadBy, TextOfAtMost, UnlessNull, WhenPresent } from '../../../http/field.validation';
import { IdList, SchemaName } from './metaverse-schema.validation';

const DATA_TYPES = Object.values(AttributeDataType);

const TYPE_MESSAGE = `type must be one of ${DATA_TYPES.join(', ')}.`;
/** type: null in an update reads as a missing type, so it is answered with the types in words. */
const UPDATE_TYPE_MESSAGE = ({ value }: ValidationArguments) =>
  value === null ? `type must be ${DATA_TYPES.slice(0, -1).join(', ')} or ${DATA_TYPES[DATA_TYPES.length - 1]}.` : TYPE_MESSAGE;
const PLURALITY_MESSAGE = 'plurality must be Single or Multi.';
const DESCRIPTION_LENGTH_MESSAGE = `description must be at most ${MAX_SCHEMA_DESCRIPTION_LENGTH} characters.`;

const GRACE_DESCRIPTION =
  `How long an object stays a pending deletion before housekeeping deletes it: a timespan "d.hh:mm:ss" or "hh:mm:ss" ` +
  `in whole seconds, at most ${MAX_DELETION_GRACE_PERIOD_DAYS} days. null, 0 or "00:00:00": no grace period (deleted within the synchronisation run).`;

/** The deletion fields shared by object type create and update (DOMAIN.md §2.4). */
class DeletionRuleFieldsDto {
  @ApiPropertyOptional({
    enum: DeletionRule,
    default: DeletionRule.WhenLastConnectorDisconnected,
    description:
      'Manual: never automatic. WhenLastConnectorDisconnected: when the last connector space object disconnects. ' +
      'WhenAuthoritativeSourceDisconnected: when the trigger systems disconnect (deletionTriggerMode). Internal objects are never deleted automatically.',
  })
  @WhenPresent()
  @ReadBy(parseDeletionRule, 'deletionRule must be text.')
  deletionRule?: DeletionRule;

  /** Sent as a timespan; read into seconds (null: no grace period). */
  @ApiPropertyOptional({ type: String, nullable: true, example: '7.00:00:00', description: GRACE_DESCRIPTION })
  @WhenPresent()
  @ReadBy(parseDeletionGracePeriod)
  deletionGracePeriod?: number | null;

  @ApiPropertyOptional({
    type: [Number],
    example: [1],
    description:
      'Connected systems whose disconnection deletes the object. Required (non-empty) with WhenAuthoritativeSourceDisconnected, refused with the other rules; ' +
      'changing the rule away from WhenAuthoritativeSourceDisconnected clears them.',
  })
  @WhenPresent()
  @IdList('deletionTriggerConnectedSystemIds', 'connected system', {
    nullIsEmpty: true,
    rangeMessage: 'deletionTriggerConnectedSystemIds must be an array of connected system ids (positive integers).',
  })
  deletionTriggerConnectedSystemIds?: number[] | null;

  @ApiPropertyOptional({
    enum: DeletionTriggerMode,
    default: DeletionTriggerMode.Any,
    description: 'Any: one trigger system disconnecting is enough. All: every one must.',
  })
  @WhenPresent()
  @ReadBy(parseDeletionTriggerMode, 'deletionTriggerMode must be text.')
  deletionTriggerMode?: DeletionTriggerMode;
}

export class CreateMetaverseObjectTypeDto extends DeletionRuleFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Contractor', description: 'Unique, compared ignoring case; no commas.' })
  @SchemaName('Object type')
  name: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String })
  @UnlessNull()
  @TextOfAtMost(MAX_SCHEMA_DESCRIPTION_LENGTH, 'description must be text.', DESCRIPTION_LENGTH_MESSAGE)
  description?: string | null;

  @ApiPropertyOptional({
    type: [Number],
    example: [4, 6],
    description: 'Existing attributes the type has (e.g. Display Name, so objects get a display name).',
  })
  @WhenPresent()
  @IdList('attributeIds', 'attribute')
  attributeIds?: number[];
}

/** Every field optional; absent fields keep their value. Built-in types take only the deletion fields (name and description as they are). */
export class UpdateMetaverseObjectTypeDto extends DeletionRuleFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Custom types only: built-in User and Group cannot be renamed.' })
  @WhenPresent()
  @SchemaName('Object type', { nullIsBlank: true })
  name?: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String, description: 'Custom types only.' })
  @UnlessNull()
  @TextOfAtMost(MAX_SCHEMA_DESCRIPTION_LENGTH, 'description must be text or null.', DESCRIPTION_LENGTH_MESSAGE)
  description?: string | null;

  @ApiPropertyOptional({
    type: [Number],
    description:
      'Replaces the set of attributes the type has. An attribute cannot be taken off while objects of the type hold ' +
      'values for it or sync rules of the type use it; the attributes of the built-in schema stay on User and Group.',
  })
  @WhenPresent()
  @IdList('attributeIds', 'attribute')
  attributeIds?: number[];
}

export class ObjectTypeRefDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
}

export class MetaverseAttributeDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ enum: AttributeDataType }) type: AttributeDataType;
  @ApiProperty({ enum: AttributePlurality }) plurality: AttributePlurality;
  @ApiProperty({ description: 'Part of the built-in schema (DOMAIN.md §3): name, type and plurality are fixed.' }) isBuiltIn: boolean;
  @ApiProperty({ description: 'Values are kept in the lookup table: exact, case-insensitive filters and matching on it use an index.' })
  isIndexed: boolean;
  @ApiProperty({ type: [Number] }) objectTypeIds: number[];
  @ApiProperty({ type: [ObjectTypeRefDto] }) objectTypes: ObjectTypeRefDto[];
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
}

export class MetaverseObjectTypeDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ description: 'User and Group: cannot be renamed or deleted.' }) isBuiltIn: boolean;
  @ApiProperty({ enum: DeletionRule }) deletionRule: DeletionRule;
  @ApiPropertyOptional({ nullable: true, type: String, example: '7.00:00:00', description: 'null: no grace period.' }) deletionGracePeriod:
    string | null;
  @ApiProperty({ type: [Number] }) deletionTriggerConnectedSystemIds: number[];
  @ApiProperty({ enum: DeletionTriggerMode }) deletionTriggerMode: DeletionTriggerMode;
  @ApiProperty() attributeCount: number;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
}

export class MetaverseObjectTypeDetailDto extends MetaverseObjectTypeDto {
  @ApiProperty({ type: [MetaverseAttributeDto] }) attributes: MetaverseAttributeDto[];
}

export class AttributeListQueryDto {
  @ApiPropertyOptional({ minimum: 1, description: 'Only the attributes of this object type.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'objectTypeId must be a whole number.' })
  @Min(1, { message: 'objectTypeId must be at least 1.' })
  objectTypeId?: number;
}

export class CreateMetaverseAttributeDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 200,
    example: 'Cost Centre',
    description: 'Unique, compared ignoring case; no commas (names are listed comma-separated in attributes=).',
  })
  @SchemaName('Attribute')
  name: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String })
  @UnlessNull()
  @TextOfAtMost(MAX_SCHEMA_DESCRIPTION_LENGTH, 'description must be text.', DESCRIPTION_LENGTH_MESSAGE)
  description?: string | null;

  @ApiProperty({
    enum: AttributeDataType,
    description: 'String and Text hold text, Binary base64 text, Reference the id of another metaverse object.',
  })
  @IsEnum(AttributeDataType, { message: TYPE_MESSAGE })
  type: AttributeDataType;

  @ApiPropertyOptional({ enum: AttributePlurality, default: AttributePlurality.Single })
  @WhenPresent()
  @IsEnum(AttributePlurality, { message: PLURALITY_MESSAGE })
  plurality?: AttributePlurality;

  @ApiPropertyOptional({ type: [Number], example: [1], description: 'The object types that get the attribute.' })
  @WhenPresent()
  @IdList('objectTypeIds', 'object type')
  objectTypeIds?: number[];

  @ApiPropertyOptional({
    default: false,
    description: 'Keep values in the lookup table (String, Text, Guid, Integer and LongNumber only).',
  })
  @WhenPresent()
  @IsBoolean({ message: 'isIndexed must be true or false.' })
  isIndexed?: boolean;
}

/**
 * Every field optional; absent fields keep their value. Built-in attributes: only isIndexed and objectTypeIds
 * (adding types; the built-in ones stay) — name, description, type and plurality may only be repeated as they are.
 */
export class UpdateMetaverseAttributeDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    description: 'Custom attributes only; refused while mapping expressions name the attribute.',
  })
  @WhenPresent()
  @SchemaName('Attribute', { nullIsBlank: true })
  name?: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String, description: 'Custom attributes only.' })
  @UnlessNull()
  @TextOfAtMost(MAX_SCHEMA_DESCRIPTION_LENGTH, 'description must be text or null.', DESCRIPTION_LENGTH_MESSAGE)
  description?: string | null;

  @ApiPropertyOptional({ enum: AttributeDataType, description: 'Custom attributes only, and only while no object holds a value.' })
  @WhenPresent()
  @IsEnum(AttributeDataType, { message: UPDATE_TYPE_MESSAGE })
  type?: AttributeDataType;

  @ApiPropertyOptional({ enum: AttributePlurality, description: 'Custom attributes only, and only while no object holds a value.' })
  @WhenPresent()
  @IsEnum(AttributePlurality, { message: PLURALITY_MESSAGE })
  plurality?: AttributePlurality;

  @ApiPropertyOptional({
    type: [Number],
    description:
      'Replaces the object types that have the attribute. A type cannot be removed while its objects hold values ' +
      'for the attribute or its sync rules use it; built-in attributes stay on their built-in types.',
  })
  @WhenPresent()
  @IdList('objectTypeIds', 'object type')
  objectTypeIds?: number[];

  @ApiPropertyOptional({
    description:
      'true builds the lookup rows for existing values (one statement, inside the request); false removes them. ' +
      'Refused for the OIDC subject attribute and attributes used by matching rules.',
  })
  @WhenPresent()
  @IsBoolean({ message: 'isIndexed must be true or false.' })
  isIndexed?: boolean;
}
