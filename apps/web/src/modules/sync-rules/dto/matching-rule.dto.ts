import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_INTEGER_ID, WhenPresent } from '../../../http/field.validation';

const ID = { message: '$property must be a positive whole number.' };
const AT_LEAST_ONE = { message: 'connectedSystemAttributeIds must list at least one connected system attribute id.' };
const AT_MOST_TEN = { message: 'connectedSystemAttributeIds can list at most 10 attributes.' };

class MatchingRuleFieldsDto {
  @ApiPropertyOptional({ default: false, description: 'Compare respecting case (default: ignoring case).' })
  @WhenPresent()
  @IsBoolean()
  caseSensitive?: boolean;

  @ApiPropertyOptional({
    minimum: 1,
    description: '1-based position in evaluation order (1 = tried first); default last. Past the end means last.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INTEGER_ID, { message: 'order must be a whole number of at least 1 (1 = tried first).' })
  order?: number;
}

export class CreateMatchingRuleDto extends MatchingRuleFieldsDto {
  @ApiProperty({
    type: [Number],
    minItems: 1,
    maxItems: 10,
    example: [41],
    description: "Selected attributes of the rule's connected system object type; the values of all of them are candidates.",
  })
  @IsArray(AT_LEAST_ONE)
  @ArrayNotEmpty(AT_LEAST_ONE)
  @ArrayMaxSize(10, AT_MOST_TEN)
  @IsInt({ each: true, ...ID })
  @Min(1, { each: true, ...ID })
  @Max(MAX_INTEGER_ID, { each: true, ...ID })
  connectedSystemAttributeIds: number[];

  @ApiProperty({
    description: "A String, Text, Guid, Integer or LongNumber attribute of the rule's metaverse object type; indexed automatically.",
    example: 8,
  })
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseAttributeId: number;
}

export class UpdateMatchingRuleDto extends MatchingRuleFieldsDto {
  @ApiPropertyOptional({ type: [Number], minItems: 1, maxItems: 10 })
  @WhenPresent()
  @IsArray(AT_LEAST_ONE)
  @ArrayNotEmpty(AT_LEAST_ONE)
  @ArrayMaxSize(10, AT_MOST_TEN)
  @IsInt({ each: true, ...ID })
  @Min(1, { each: true, ...ID })
  @Max(MAX_INTEGER_ID, { each: true, ...ID })
  connectedSystemAttributeIds?: number[];

  @ApiPropertyOptional()
  @WhenPresent()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseAttributeId?: number;
}

export class MatchingRuleOrderDto {
  @ApiProperty({
    type: [Number],
    description: 'Every matching rule of the sync rule, exactly once, first tried first.',
    example: [7, 5, 6],
  })
  @IsArray({ message: 'matchingRuleIds must be an array of matching rule ids.' })
  matchingRuleIds: number[];
}

export class MatchingRuleAttributeDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
}

export class MatchingRuleDto {
  @ApiProperty() id: number;
  @ApiProperty() syncRuleId: number;
  @ApiProperty({ description: '1-based evaluation order.' }) order: number;
  @ApiProperty({ type: [Number] }) connectedSystemAttributeIds: number[];
  @ApiProperty({ type: [MatchingRuleAttributeDto] }) connectedSystemAttributes: MatchingRuleAttributeDto[];
  @ApiProperty() metaverseAttributeId: number;
  @ApiProperty() metaverseAttributeName: string;
  @ApiProperty() caseSensitive: boolean;
  @ApiProperty({ format: 'date-time' }) created: string;
}
