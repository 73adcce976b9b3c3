import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { InboundOutOfScopeAction, OutboundDeprovisionAction, SyncRuleDirection } from '@meridian/domain';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsEnum, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_INTEGER_ID, NonBlankText, UnlessNull, WhenPresent } from '../../../http/field.validation';
import { PageQueryDto } from '../../../http/paging.dto';
import { MappingDto } from './mapping.dto';
import { MatchingRuleDto } from './matching-rule.dto';
import { SCOPING_CRITERIA_DESCRIPTION, ScopingGroupDto } from './scoping-criteria.dto';

const ID = { message: '$property must be a positive whole number.' };
const NAME_MESSAGE = 'name is required and must be 1-200 characters.';
const DESCRIPTION = { message: 'description must be text of at most 2000 characters.' };
const TRUE_OR_FALSE = { message: '$property must be true or false.' };
const DIRECTION = { message: 'direction must be Import or Export.' };

export class SyncRuleListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only rules of this connected system.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  connectedSystemId?: number;

  @ApiPropertyOptional({ enum: SyncRuleDirection })
  @IsOptional()
  @IsEnum(SyncRuleDirection, DIRECTION)
  direction?: SyncRuleDirection;

  @ApiPropertyOptional({ description: 'Only rules of this metaverse object type.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseObjectTypeId?: number;
}

class SyncRuleFieldsDto {
  @ApiPropertyOptional({ maxLength: 2000, nullable: true, type: String })
  @UnlessNull()
  @IsString(DESCRIPTION)
  @MaxLength(2000, DESCRIPTION)
  description?: string | null;

  @ApiPropertyOptional({
    description: 'Import rules only: create a metaverse object for an in-scope object that matches none.',
    default: false,
  })
  @WhenPresent()
  @IsBoolean(TRUE_OR_FALSE)
  projectToMetaverse?: boolean;

  @ApiPropertyOptional({
    description: 'Export rules only: create the object in the connected system for an in-scope metaverse object that has none there.',
    default: false,
  })
  @WhenPresent()
  @IsBoolean(TRUE_OR_FALSE)
  provisionToConnectedSystem?: boolean;

  @ApiPropertyOptional({ default: true })
  @WhenPresent()
  @IsBoolean(TRUE_OR_FALSE)
  enabled?: boolean;

  @ApiPropertyOptional({
    enum: InboundOutOfScopeAction,
    default: InboundOutOfScopeAction.Disconnect,
    description: 'Import rules only: what happens to a joined object that leaves the scope.',
  })
  @IsOptional()
  @IsEnum(InboundOutOfScopeAction, { message: 'inboundOutOfScopeAction must be RemainJoined or Disconnect.' })
  inboundOutOfScopeAction?: InboundOutOfScopeAction;

  @ApiPropertyOptional({
    enum: OutboundDeprovisionAction,
    default: OutboundDeprovisionAction.Disconnect,
    description: 'Export rules only: what happens to a joined object whose metaverse object leaves the scope.',
  })
  @IsOptional()
  @IsEnum(OutboundDeprovisionAction, { message: 'outboundDeprovisionAction must be Disconnect or Delete.' })
  outboundDeprovisionAction?: OutboundDeprovisionAction;

  @ApiPropertyOptional({ type: [ScopingGroupDto], default: [], description: SCOPING_CRITERIA_DESCRIPTION })
  @IsOptional()
  @IsArray({ message: 'scopingCriteria must be an array of groups (an empty array: every object is in scope).' })
  scopingCriteria?: unknown[] | null;
}

export class CreateSyncRuleDto extends SyncRuleFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'HR users in', description: 'Unique (ignoring case) among sync rules.' })
  @NonBlankText(1, 200, NAME_MESSAGE)
  name: string;

  @ApiProperty({ description: 'The connected system; immutable.' })
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  connectedSystemId: number;

  @ApiProperty({ enum: SyncRuleDirection, description: 'Immutable.' })
  @IsEnum(SyncRuleDirection, DIRECTION)
  direction: SyncRuleDirection;

  @ApiProperty({ description: 'An object type of the connected system that is selected for synchronisation.' })
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  connectedSystemObjectTypeId: number;

  @ApiProperty({ description: 'A metaverse object type, e.g. the built-in User.' })
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseObjectTypeId: number;
}

/** Partial update; direction and connectedSystemId may be repeated unchanged but never changed. */
export class UpdateSyncRuleDto extends SyncRuleFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @WhenPresent()
  @NonBlankText(1, 200, NAME_MESSAGE)
  name?: string;

  @ApiPropertyOptional({ description: 'Immutable: only the current value is accepted.' })
  @IsOptional()
  @IsInt(ID)
  connectedSystemId?: number;

  @ApiPropertyOptional({ enum: SyncRuleDirection, description: 'Immutable: only the current value is accepted.' })
  @IsOptional()
  @IsString()
  direction?: string;

  @ApiPropertyOptional({ description: 'Changeable only while the rule has no mappings, matching rules or criteria on the old type.' })
  @IsOptional()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  connectedSystemObjectTypeId?: number;

  @ApiPropertyOptional({ description: 'Changeable only while the rule has no mappings, matching rules or criteria on the old type.' })
  @IsOptional()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseObjectTypeId?: number;
}

export class SyncRuleDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ enum: SyncRuleDirection }) direction: SyncRuleDirection;
  @ApiProperty() enabled: boolean;
  @ApiProperty() connectedSystemId: number;
  @ApiProperty() connectedSystemName: string;
  @ApiProperty() connectedSystemObjectTypeId: number;
  @ApiProperty() connectedSystemObjectTypeName: string;
  @ApiProperty() metaverseObjectTypeId: number;
  @ApiProperty() metaverseObjectTypeName: string;
  @ApiProperty({ description: 'Always false on Export rules.' }) projectToMetaverse: boolean;
  @ApiProperty({ description: 'Always false on Import rules.' }) provisionToConnectedSystem: boolean;
  @ApiPropertyOptional({ enum: InboundOutOfScopeAction, nullable: true, description: 'Null on Export rules.' })
  inboundOutOfScopeAction: InboundOutOfScopeAction | null;
  @ApiPropertyOptional({ enum: OutboundDeprovisionAction, nullable: true, description: 'Null on Import rules.' })
  outboundDeprovisionAction: OutboundDeprovisionAction | null;
  @ApiProperty({ description: 'False when every object is in scope.' }) hasScopingCriteria: boolean;
  @ApiProperty() mappingCount: number;
  @ApiProperty() matchingRuleCount: number;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) lastUpdated: string | null;
}

export class SyncRuleDetailDto extends SyncRuleDto {
  @ApiProperty({ type: [ScopingGroupDto] }) scopingCriteria: ScopingGroupDto[];
  @ApiProperty({ type: [MappingDto] }) mappings: MappingDto[];
  @ApiProperty({ type: [MatchingRuleDto], description: 'Import rules only; in evaluation order.' }) matchingRules: MatchingRuleDto[];
}
