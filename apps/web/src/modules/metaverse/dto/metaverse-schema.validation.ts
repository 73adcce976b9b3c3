import { applyDecorators } from '@nestjs/common';
import { schemaNameProblem } from '@meridian/domain';
import { ValidateBy, ValidationArguments } from 'class-validator';
import { MAX_INTEGER_ID } from '../../../http/field.validation';

/**
 * The name of an object type or attribute (`what`), read by the domain's rule (not blank, at most 200 characters
 * after trimming, no commas, not "*", no control characters). Anything but text is "name must be text."; with
 * `nullIsBlank` (updates), null is a missing name.
 */
export function SchemaName(what: string, options: { nullIsBlank?: boolean } = {}): PropertyDecorator {
  const checked = (value: unknown) => typeof value === 'string' || (value === null && !!options.nullIsBlank);
  return ValidateBy(
    { name: 'schemaName', validator: { validate: (value: unknown) => typeof value === 'string' && !schemaNameProblem(value, what) } },
    { message: ({ value }: ValidationArguments) => (checked(value) ? schemaNameProblem(value, what)! : 'name must be text.') },
  );
}

const isWhole = (value: unknown): value is number => Number.isInteger(value);

/**
 * A list of ids (`field`, of `noun`s): an array of whole numbers from 1 to the largest integer id, each failure with
 * its own message. null is refused as "not an array of ids", or with `nullIsEmpty` means no ids.
 */
export function IdList(field: string, noun: string, options: { nullIsEmpty?: boolean; rangeMessage?: string } = {}): PropertyDecorator {
  const inRange = (ids: unknown[]) => ids.every((id) => !isWhole(id) || (id >= 1 && id <= MAX_INTEGER_ID));
  return applyDecorators(
    ValidateBy(
      { name: 'idListArray', validator: { validate: (value: unknown) => value === null || Array.isArray(value) } },
      { message: `${field} must be an array of ${noun} ids.` },
    ),
    ValidateBy(
      { name: 'idListWhole', validator: { validate: (value: unknown) => value === null || isWhole(value) } },
      { each: true, message: `${field} must hold whole numbers.` },
    ),
    ValidateBy(
      {
        name: 'idListRange',
        validator: { validate: (value: unknown) => (value === null ? !!options.nullIsEmpty : !Array.isArray(value) || inRange(value)) },
      },
      { message: options.rangeMessage ?? `${field} must be an array of ids (positive integers).` },
    ),
  );
}
