import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_INTEGER_ID } from '../../../http/field.validation';

const ID = { message: '$property must be a positive whole number.' };

export class AttributePriorityQueryDto {
  @ApiPropertyOptional({ description: 'Only contributors of this metaverse object type.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseObjectTypeId?: number;

  @ApiPropertyOptional({ description: 'Only contributors of this metaverse attribute.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseAttributeId?: number;
}

export class SetAttributePriorityDto {
  @ApiProperty()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseObjectTypeId: number;

  @ApiProperty()
  @IsInt(ID)
  @Min(1, ID)
  @Max(MAX_INTEGER_ID, ID)
  metaverseAttributeId: number;

  @ApiProperty({
    type: [Number],
    description: 'Every import mapping contributing the attribute, exactly once, highest priority first.',
    example: [14, 9],
  })
  @IsArray({ message: 'mappingIds must be an array of mapping ids, highest priority first.' })
  mappingIds: number[];
}

export class AttributePriorityDto {
  @ApiProperty() metaverseObjectTypeId: number;
  @ApiProperty() metaverseObjectTypeName: string;
  @ApiProperty() metaverseAttributeId: number;
  @ApiProperty() metaverseAttributeName: string;
  @ApiProperty() mappingId: number;
  @ApiProperty() syncRuleId: number;
  @ApiProperty() syncRuleName: string;
  @ApiProperty() syncRuleEnabled: boolean;
  @ApiProperty() mappingEnabled: boolean;
  @ApiProperty() connectedSystemId: number;
  @ApiProperty() connectedSystemName: string;
  @ApiProperty({ description: '1 = highest.' }) priority: number;
  @ApiProperty({ description: 'An empty value from this contributor still wins.' }) nullIsValue: boolean;
}
