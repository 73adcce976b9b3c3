import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches } from 'class-validator';
import { IsDateTime } from '../../../http/date-time.validation';
import { UnlessNull } from '../../../http/field.validation';

const EXPRESSION = { message: 'expression is required: the text of an expression, e.g. Upper(cs["sn"]).' };

const SAMPLE_VALUES =
  'Attribute name → value: text, number, true/false, null, a list of those (a multi-valued attribute), or a date written { "$date": "2025-01-31T08:00:00Z" }. Names are matched ignoring case.';

export class TestExpressionDto {
  @ApiProperty({ maxLength: 10000, example: 'Lower(cs["givenName"]) + "." + Lower(cs["sn"])' })
  @IsString(EXPRESSION)
  @Matches(/\S/, EXPRESSION)
  expression: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `Sample metaverse attributes (mv["…"]). ${SAMPLE_VALUES}`,
    example: { 'Display Name': 'Ada Lovelace' },
  })
  @IsOptional()
  @IsObject()
  mv?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `Sample connected system attributes (cs["…"]). ${SAMPLE_VALUES}`,
    example: { givenName: 'Ada', sn: 'Lovelace' },
  })
  @IsOptional()
  @IsObject()
  cs?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'The clock Now() and Today() read (default: the server clock).',
  })
  @UnlessNull()
  @IsDateTime('now must be an ISO 8601 date-time, e.g. 2025-01-31T08:00:00Z (Now() and Today() read it).')
  now?: Date | null;
}

export class ExpressionInputsDto {
  @ApiProperty({ type: [String] }) mv: string[];
  @ApiProperty({ type: [String] }) cs: string[];
}

export class ExpressionPositionDto {
  @ApiProperty({ description: '1-based.' }) line: number;
  @ApiProperty({ description: '1-based, in UTF-16 code units.' }) column: number;
  @ApiProperty({ description: '0-based.' }) offset: number;
}

export class ExpressionEvaluationErrorDto {
  @ApiProperty({ example: 'DivisionByZero' }) code: string;
  @ApiProperty() message: string;
  @ApiProperty({ type: ExpressionPositionDto }) position: ExpressionPositionDto;
  @ApiProperty({ description: 'The source text of the operator or call that failed.' }) token: string;
}

/** A scalar an expression can produce, as JSON (null only through the text branch, so exactly one branch matches). */
const EXPRESSION_SCALAR = [{ type: 'string', nullable: true }, { type: 'number' }, { type: 'boolean' }];

export class TestExpressionResultDto {
  @ApiProperty({
    oneOf: [...EXPRESSION_SCALAR, { type: 'array', items: { oneOf: EXPRESSION_SCALAR } }],
    description:
      'The result as JSON: text, a number, true/false, dates as ISO 8601 text, lists as arrays of those; ' +
      'null when evaluation failed (or the result is null).',
  })
  result: string | number | boolean | Array<string | number | boolean | null> | null;

  @ApiPropertyOptional({
    nullable: true,
    enum: ['text', 'number', 'boolean', 'date', 'list', 'null'],
    description: 'Null when evaluation failed.',
  })
  resultType: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'The result as the expression reference shows it (text quoted, dates marked).',
    example: '"ada.lovelace"',
  })
  resultText: string | null;

  @ApiProperty({ type: ExpressionInputsDto, description: 'The attributes the expression reads.' }) inputs: ExpressionInputsDto;
  @ApiProperty({ type: ExpressionInputsDto, description: 'Inputs with no value in the sample.' }) missingInputs: ExpressionInputsDto;
  @ApiProperty({ type: [String], description: 'Functions the expression calls.' }) functions: string[];
  @ApiProperty({ description: 'False when the result depends on the clock or randomness.' }) deterministic: boolean;

  @ApiPropertyOptional({
    nullable: true,
    type: ExpressionEvaluationErrorDto,
    description: 'Set when evaluation failed (the expression compiled but could not be evaluated with these values).',
  })
  error: ExpressionEvaluationErrorDto | null;
}

export class ExpressionFunctionParameterDto {
  @ApiProperty() name: string;
  @ApiProperty({ example: 'text' }) type: string;
  @ApiPropertyOptional() optional?: boolean;
  @ApiPropertyOptional() variadic?: boolean;
}

export class ExpressionFunctionExampleDto {
  @ApiProperty() expression: string;
  @ApiProperty() result: string;
  @ApiPropertyOptional() deterministic?: boolean;
}

export class ExpressionFunctionDto {
  @ApiProperty({ example: 'Left' }) name: string;
  @ApiProperty({ type: [String] }) aliases: string[];
  @ApiProperty({ enum: ['Text', 'Collections', 'Logic', 'Dates', 'Conversion', 'Directory', 'Bits'] }) category: string;
  @ApiProperty({ example: 'Left(value: text, count: whole number) → text' }) signature: string;
  @ApiProperty({ type: [ExpressionFunctionParameterDto] }) parameters: ExpressionFunctionParameterDto[];
  @ApiProperty() returns: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: 'What the function does with null arguments.' }) nulls: string;
  @ApiProperty({ type: [ExpressionFunctionExampleDto] }) examples: ExpressionFunctionExampleDto[];
  @ApiProperty() deterministic: boolean;
}
