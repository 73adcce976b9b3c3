import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { RelativeDateDirection, RelativeDateUnit, ScopingGroupType, ScopingOperator } from '@meridian/domain';
import { IsArray } from 'class-validator';

const RELATIVE_DATE_SCHEMA = {
  type: 'object',
  required: ['relative'],
  description: 'A date relative to the moment of evaluation.',
  properties: {
    relative: {
      type: 'object',
      required: ['amount', 'unit', 'direction'],
      properties: {
        amount: { type: 'integer', minimum: 0, maximum: 100000, example: 30 },
        unit: { type: 'string', enum: Object.values(RelativeDateUnit) },
        direction: { type: 'string', enum: Object.values(RelativeDateDirection) },
      },
    },
  },
};

/** One comparison of a scoping group (docs/sync-rules.md, "Scoping criteria"). */
export class ScopingCriterionDto {
  @ApiProperty({
    description:
      "Import rules: a selected attribute of the rule's connected system object type. Export rules: an attribute of its metaverse object type.",
    example: 12,
  })
  attributeId: number;

  @ApiProperty({
    enum: ScopingOperator,
    description:
      'Operators depend on the attribute type: text supports Equals…NotContains; numbers and dates Equals, NotEquals and the orderings; Boolean and Guid Equals/NotEquals; every type IsPresent/IsNotPresent (the only ones for Reference and Binary).',
  })
  operator: ScopingOperator;

  @ApiPropertyOptional({
    nullable: true,
    description:
      'The value to compare with; absent or null for IsPresent/IsNotPresent. Text for text and Guid attributes, a number for numbers, true/false for Boolean. ' +
      'DateTime: an ISO 8601 date or date-time (UTC unless it names an offset; stored as an ISO instant), a relative date as text such as "30 days ago" or "2 weeks from now", ' +
      'or { "relative": { "amount": 30, "unit": "Days", "direction": "Ago" } } (text is stored in this form).',
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, RELATIVE_DATE_SCHEMA],
    example: 'Sales',
  })
  value?: string | number | boolean | { relative: { amount: number; unit: RelativeDateUnit; direction: RelativeDateDirection } } | null;

  @ApiPropertyOptional({ default: false, description: 'Text attributes only: compare respecting case (default: ignoring case).' })
  caseSensitive?: boolean;
}

/** A group of criteria: `All` holds when every criterion and nested group holds, `Any` when at least one does. */
export class ScopingGroupDto {
  @ApiProperty({ enum: ScopingGroupType })
  type: ScopingGroupType;

  @ApiPropertyOptional({ type: [ScopingCriterionDto], default: [] })
  criteria?: ScopingCriterionDto[];

  @ApiPropertyOptional({ type: () => [ScopingGroupDto], default: [], description: 'Nested groups, at most 5 levels deep in all.' })
  groups?: ScopingGroupDto[];
}

export const SCOPING_CRITERIA_DESCRIPTION =
  'Top-level groups OR together; an empty array puts every object in scope. At most 5 levels, 50 groups and 200 criteria. ' +
  "Validated against the rule's attributes; errors name the path, e.g. scopingCriteria[0].criteria[1].operator.";

/** Body of PUT /sync-rules/{id}/scoping-criteria. */
export class SetScopingCriteriaDto {
  @ApiProperty({ type: [ScopingGroupDto], description: SCOPING_CRITERIA_DESCRIPTION })
  @IsArray({ message: 'scopingCriteria must be an array of groups (an empty array: every object is in scope).' })
  scopingCriteria: unknown[];
}

export class ScopingCriteriaDto {
  @ApiProperty() syncRuleId: number;
  @ApiProperty({
    type: [ScopingGroupDto],
    description: 'As stored: defaults filled in, absolute dates as ISO instants, relative dates as objects.',
  })
  scopingCriteria: ScopingGroupDto[];
}
