import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_MAPPING_SOURCES } from '@meridian/application';
import { MappingSourceType } from '@meridian/domain';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { MAX_INTEGER_ID, WhenPresent } from '../../../http/field.validation';

const ID = { message: '$property must be a positive whole number.' };
const TRUE_OR_FALSE = { message: '$property must be true or false.' };
const PRIORITY = { message: 'priority must be a whole number of at least 1 (1 = highest).' };
const SOURCES = { message: 'sources must list at least one source.' };
const MAX_SOURCES = { message: `A mapping can have at most ${MAX_MAPPING_SOURCES} sources.` };

/** A source in the create/update body (spec 4.8). */
export class MappingSourceInputDto {
  @ApiPropertyOptional({ default: 0, minimum: 0, description: 'Evaluation order.' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  order?: number;

  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: "Import rules: a selected attribute of the rule's connected system object type.",
  })
  @IsOptional()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  connectedSystemAttributeId?: number | null;

  @ApiPropertyOptional({ nullable: true, type: Number, description: "Export rules: an attribute of the rule's metaverse object type." })
  @IsOptional()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseAttributeId?: number | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 10000,
    example: 'Trim(cs["givenName"]) + " " + Trim(cs["sn"])',
    description:
      'An expression (docs/expressions.md), validated when saved: errors carry line and column. A source may be an expression alone.',
  })
  @IsOptional()
  @IsString()
  expression?: string | null;
}

class MappingFieldsDto {
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: "Required for Import rules: an attribute of the rule's metaverse object type.",
  })
  @IsOptional()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  targetMetaverseAttributeId?: number | null;

  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: "Required for Export rules: a selected, writable attribute of the rule's connected system object type.",
  })
  @IsOptional()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  targetConnectedSystemAttributeId?: number | null;

  @ApiPropertyOptional({
    minimum: 1,
    description:
      'Import rules only: position among the contributors of the target metaverse attribute (1 = highest); default last. Past the end means last.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INTEGER_ID, PRIORITY)
  priority?: number;

  @ApiPropertyOptional({
    default: false,
    description: 'Import rules only: an empty value from this mapping still wins (it asserts the attribute is empty).',
  })
  @WhenPresent()
  @IsBoolean(TRUE_OR_FALSE)
  nullIsValue?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Export rules only: flow when the object is created (provisioned), never on updates.',
  })
  @WhenPresent()
  @IsBoolean(TRUE_OR_FALSE)
  initialExportOnly?: boolean;

  @ApiPropertyOptional({ default: true })
  @WhenPresent()
  @IsBoolean(TRUE_OR_FALSE)
  enabled?: boolean;
}

export class CreateMappingDto extends MappingFieldsDto {
  @ApiProperty({ type: [MappingSourceInputDto], minItems: 1, maxItems: 20, description: 'At least one source.' })
  @IsArray(SOURCES)
  @ArrayNotEmpty(SOURCES)
  @ArrayMaxSize(MAX_MAPPING_SOURCES, MAX_SOURCES)
  @ValidateNested({ each: true })
  @Type(() => MappingSourceInputDto)
  sources: MappingSourceInputDto[];
}

/** Partial update; `sources`, when given, replaces every source. */
export class UpdateMappingDto extends MappingFieldsDto {
  @ApiPropertyOptional({ type: [MappingSourceInputDto], minItems: 1, maxItems: 20, description: 'Replaces every source.' })
  @WhenPresent()
  @IsArray(SOURCES)
  @ArrayNotEmpty(SOURCES)
  @ArrayMaxSize(MAX_MAPPING_SOURCES, MAX_SOURCES)
  @ValidateNested({ each: true })
  @Type(() => MappingSourceInputDto)
  sources?: MappingSourceInputDto[];
}

export class MappingSourceDto {
  @ApiProperty() id: number;
  @ApiProperty() order: number;
  @ApiPropertyOptional({ nullable: true, type: Number }) connectedSystemAttributeId: number | null;
  @ApiPropertyOptional({ nullable: true, type: String }) connectedSystemAttributeName: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number }) metaverseAttributeId: number | null;
  @ApiPropertyOptional({ nullable: true, type: String }) metaverseAttributeName: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) expression: string | null;
}

/** An attribute mapping (spec 2.12) with Meridian's extensions. */
export class MappingDto {
  @ApiProperty() id: number;
  @ApiProperty() syncRuleId: number;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Import rules.' }) targetMetaverseAttributeId: number | null;
  @ApiPropertyOptional({ nullable: true, type: String }) targetMetaverseAttributeName: string | null;
  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Export rules.' }) targetConnectedSystemAttributeId: number | null;
  @ApiPropertyOptional({ nullable: true, type: String }) targetConnectedSystemAttributeName: string | null;
  @ApiProperty({
    enum: MappingSourceType,
    description:
      'Derived: one source without expression → AttributeMapping; one with an expression → ExpressionMapping; several → AdvancedMapping.',
  })
  sourceType: MappingSourceType;
  @ApiProperty({ type: [MappingSourceDto], description: 'Ordered by order, then id.' }) sources: MappingSourceDto[];
  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    description: 'Import rules: attribute priority among the contributors of the target (1 = highest); null on Export rules.',
  })
  priority: number | null;
  @ApiProperty() nullIsValue: boolean;
  @ApiProperty() initialExportOnly: boolean;
  @ApiProperty() enabled: boolean;
}
