import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { AttributeDataType, AttributePlurality, DeletionRule, DeletionTriggerMode, MAX_DELETION_GRACE_PERIOD_DAYS } from '@meridian/domain';

const DELETION_RULES = Object.values(DeletionRule);
const TRIGGER_MODES = Object.values(DeletionTriggerMode);
const DATA_TYPES = Object.values(AttributeDataType);
const PLURALITIES = Object.values(AttributePlurality);

const GRACE_DESCRIPTION =
  `How long an object stays a pending deletion before housekeeping deletes it: a timespan "d.hh:mm:ss" or "hh:mm:ss" ` +
  `in whole seconds, at most ${MAX_DELETION_GRACE_PERIOD_DAYS} days. null, 0 or "00:00:00": no grace period (deleted within the synchronisation run).`;

/** The deletion fields shared by object type create and update (DOMAIN.md §2.4). */
class DeletionRuleFieldsDto {
  @ApiPropertyOptional({
    enum: DELETION_RULES,
    default: DeletionRule.WhenLastConnectorDisconnected,
    description:
      'Manual: never automatic. WhenLastConnectorDisconnected: when the last connector space object disconnects. ' +
      'WhenAuthoritativeSourceDisconnected: when the trigger systems disconnect (deletionTriggerMode). Internal objects are never deleted automatically.',
  })
  @IsOptional()
  @IsString({ message: 'deletionRule must be text.' })
  deletionRule?: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: '7.00:00:00', description: GRACE_DESCRIPTION })
  @IsOptional()
  @Allow()
  deletionGracePeriod?: string | number | null;

  @ApiPropertyOptional({
    type: [Number],
    example: [1],
    description:
      'Connected systems whose disconnection deletes the object. Required (non-empty) with WhenAuthoritativeSourceDisconnected, refused with the other rules; ' +
      'changing the rule away from WhenAuthoritativeSourceDisconnected clears them.',
  })
  @IsOptional()
  @IsArray({ message: 'deletionTriggerConnectedSystemIds must be an array of connected system ids.' })
  @IsInt({ each: true, message: 'deletionTriggerConnectedSystemIds must hold whole numbers.' })
  deletionTriggerConnectedSystemIds?: number[];

  @ApiPropertyOptional({
    enum: TRIGGER_MODES,
    default: DeletionTriggerMode.Any,
    description: 'Any: one trigger system disconnecting is enough. All: every one must.',
  })
  @IsOptional()
  @IsString({ message: 'deletionTriggerMode must be text.' })
  deletionTriggerMode?: string;
}

export class CreateMetaverseObjectTypeDto extends DeletionRuleFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Contractor', description: 'Unique, compared ignoring case; no commas.' })
  @IsString({ message: 'name must be text.' })
  name: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String })
  @IsOptional()
  @IsString({ message: 'description must be text.' })
  description?: string | null;

  @ApiPropertyOptional({
    type: [Number],
    example: [4, 6],
    description: 'Existing attributes the type has (e.g. Display Name, so objects get a display name).',
  })
  @IsOptional()
  @IsArray({ message: 'attributeIds must be an array of attribute ids.' })
  @IsInt({ each: true, message: 'attributeIds must hold whole numbers.' })
  attributeIds?: number[];
}

/** Every field optional; absent fields keep their value. Built-in types take only the deletion fields (name and description as they are). */
export class UpdateMetaverseObjectTypeDto extends DeletionRuleFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Custom types only: built-in User and Group cannot be renamed.' })
  @IsOptional()
  @IsString({ message: 'name must be text.' })
  name?: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String, description: 'Custom types only.' })
  @IsOptional()
  @Allow()
  description?: string | null;

  @ApiPropertyOptional({
    type: [Number],
    description:
      'Replaces the set of attributes the type has. An attribute cannot be taken off while objects of the type hold ' +
      'values for it or sync rules of the type use it; the attributes of the built-in schema stay on User and Group.',
  })
  @IsOptional()
  @IsArray({ message: 'attributeIds must be an array of attribute ids.' })
  @IsInt({ each: true, message: 'attributeIds must hold whole numbers.' })
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
  @ApiProperty({ enum: DATA_TYPES }) type: string;
  @ApiProperty({ enum: PLURALITIES }) plurality: string;
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
  @ApiProperty({ enum: DELETION_RULES }) deletionRule: string;
  @ApiPropertyOptional({ nullable: true, type: String, example: '7.00:00:00', description: 'null: no grace period.' }) deletionGracePeriod:
    string | null;
  @ApiProperty({ type: [Number] }) deletionTriggerConnectedSystemIds: number[];
  @ApiProperty({ enum: TRIGGER_MODES }) deletionTriggerMode: string;
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
  @IsString({ message: 'name must be text.' })
  name: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String })
  @IsOptional()
  @IsString({ message: 'description must be text.' })
  description?: string | null;

  @ApiProperty({
    enum: DATA_TYPES,
    description: 'String and Text hold text, Binary base64 text, Reference the id of another metaverse object.',
  })
  @IsIn(DATA_TYPES, { message: `type must be one of ${DATA_TYPES.join(', ')}.` })
  type: string;

  @ApiPropertyOptional({ enum: PLURALITIES, default: AttributePlurality.Single })
  @IsOptional()
  @IsIn(PLURALITIES, { message: 'plurality must be Single or Multi.' })
  plurality?: string;

  @ApiPropertyOptional({ type: [Number], example: [1], description: 'The object types that get the attribute.' })
  @IsOptional()
  @IsArray({ message: 'objectTypeIds must be an array of object type ids.' })
  @IsInt({ each: true, message: 'objectTypeIds must hold whole numbers.' })
  objectTypeIds?: number[];

  @ApiPropertyOptional({
    default: false,
    description: 'Keep values in the lookup table (String, Text, Guid, Integer and LongNumber only).',
  })
  @IsOptional()
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
  @IsOptional()
  @IsString({ message: 'name must be text.' })
  name?: string;

  @ApiPropertyOptional({ maxLength: 1000, nullable: true, type: String, description: 'Custom attributes only.' })
  @IsOptional()
  @Allow()
  description?: string | null;

  @ApiPropertyOptional({ enum: DATA_TYPES, description: 'Custom attributes only, and only while no object holds a value.' })
  @IsOptional()
  @IsIn(DATA_TYPES, { message: `type must be one of ${DATA_TYPES.join(', ')}.` })
  type?: string;

  @ApiPropertyOptional({ enum: PLURALITIES, description: 'Custom attributes only, and only while no object holds a value.' })
  @IsOptional()
  @IsIn(PLURALITIES, { message: 'plurality must be Single or Multi.' })
  plurality?: string;

  @ApiPropertyOptional({
    type: [Number],
    description:
      'Replaces the object types that have the attribute. A type cannot be removed while its objects hold values ' +
      'for the attribute or its sync rules use it; built-in attributes stay on their built-in types.',
  })
  @IsOptional()
  @IsArray({ message: 'objectTypeIds must be an array of object type ids.' })
  @IsInt({ each: true, message: 'objectTypeIds must hold whole numbers.' })
  objectTypeIds?: number[];

  @ApiPropertyOptional({
    description:
      'true builds the lookup rows for existing values (one statement, inside the request); false removes them. ' +
      'Refused for the OIDC subject attribute and attributes used by matching rules.',
  })
  @IsOptional()
  @IsBoolean({ message: 'isIndexed must be true or false.' })
  isIndexed?: boolean;
}
