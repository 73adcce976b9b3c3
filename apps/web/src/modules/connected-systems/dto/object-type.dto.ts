import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AttributeWritability } from '@meridian/domain';
import { IsBoolean, IsObject } from 'class-validator';
import { WhenPresent } from '../../../http/field.validation';

/** true or false when given; null is refused with the same message. */
function TrueOrFalse(field: string): PropertyDecorator {
  return applyDecorators(WhenPresent(), IsBoolean({ message: `${field} must be true or false.` }));
}

export class CsAttributeDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiPropertyOptional({ nullable: true, type: String }) description: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Connector-specific (e.g. the LDAP object class that defines it).' })
  className: string | null;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiProperty({
    enum: ['String', 'Integer', 'Boolean', 'DateTime', 'Guid', 'Reference', 'Binary', 'Decimal'],
    description: 'Connector-owned (read-only).',
  })
  type: string;
  @ApiProperty({ enum: ['Single', 'Multi'], description: 'Connector-owned (read-only).' }) attributePlurality: string;
  @ApiProperty({ description: 'Included in synchronisation.' }) selected: boolean;
  @ApiProperty({ description: 'Primary external identifier for matching; one per object type.' }) isExternalId: boolean;
  @ApiProperty({ description: 'Secondary external identifier (e.g. an LDAP DN); one per object type.' }) isSecondaryExternalId: boolean;
  @ApiProperty({ description: 'True when the attribute is an external ID or secondary external ID and so cannot be deselected.' })
  selectionLocked: boolean;
  @ApiProperty({ enum: Object.values(AttributeWritability) }) writability: string;
  @ApiProperty({ description: 'False when the last schema import no longer found the attribute (kept so its selection survives).' })
  presentInSchema: boolean;
}

export class CsObjectTypeDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'date-time' }) created: string;
  @ApiProperty() selected: boolean;
  @ApiProperty() removeContributedAttributesOnObsoletion: boolean;
  @ApiProperty({ description: 'False when the last schema import no longer found the object type.' }) presentInSchema: boolean;
  @ApiProperty() attributeCount: number;
  @ApiProperty({ type: [CsAttributeDto] }) attributes: CsAttributeDto[];
}

export class UpdateObjectTypeDto {
  @ApiPropertyOptional() @TrueOrFalse('selected') selected?: boolean;
  @ApiPropertyOptional() @TrueOrFalse('removeContributedAttributesOnObsoletion') removeContributedAttributesOnObsoletion?: boolean;
}

export class UpdateAttributeDto {
  @ApiPropertyOptional({ description: 'External ID and secondary external ID attributes are always selected; deselecting one is a 400.' })
  @TrueOrFalse('selected')
  selected?: boolean;

  @ApiPropertyOptional({ description: 'true clears it from every other attribute of the object type (and selects this one).' })
  @TrueOrFalse('isExternalId')
  isExternalId?: boolean;

  @ApiPropertyOptional({ description: 'true clears it from every other attribute of the object type (and selects this one).' })
  @TrueOrFalse('isSecondaryExternalId')
  isSecondaryExternalId?: boolean;
}

export class BulkUpdateAttributesDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/UpdateAttributeDto' },
    example: { 12: { selected: true }, 13: { isExternalId: true } },
    description:
      'Attribute id → the fields of the single attribute update. Must not be empty; every id must be an attribute of the object type.',
  })
  @IsObject({ message: 'attributes must be an object whose keys are attribute ids.' })
  attributes: Record<string, unknown>;
}

export class BulkUpdatedAttributeDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty() selected: boolean;
  @ApiProperty() isExternalId: boolean;
  @ApiProperty() isSecondaryExternalId: boolean;
  @ApiProperty() selectionLocked: boolean;
}

export class BulkAttributeErrorDto {
  @ApiProperty() attributeId: number;
  @ApiProperty() errorMessage: string;
}

export class BulkAttributeUpdateResultDto {
  @ApiProperty({ format: 'uuid' }) activityId: string;
  @ApiProperty() updatedCount: number;
  @ApiProperty({
    type: [BulkUpdatedAttributeDto],
    description: 'Attributes updated by the request, plus attributes whose external ID flag rule 1 cleared.',
  })
  updatedAttributes: BulkUpdatedAttributeDto[];
  @ApiPropertyOptional({
    type: [BulkAttributeErrorDto],
    nullable: true,
    description: 'Attributes whose update broke a rule (e.g. deselecting an external ID) and was not applied; null when none.',
  })
  errors: BulkAttributeErrorDto[] | null;
}
