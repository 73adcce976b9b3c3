import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsIn, IsString, Length, Matches, ValidateBy, ValidateIf, ValidationArguments } from 'class-validator';

/**
 * Validation building blocks shared by the request bodies. Each rule lives here once; a DTO composes them
 * with the messages of its fields. Services receive the validated, typed body and do not check it again.
 */

/** A field given in the body, even as null: partial updates validate only what they were sent. */
export const isPresent = (_: object, value: unknown): boolean => value !== undefined;

/** Validate the field whenever it is in the body; `null` is then refused by the field's type rule. */
export function WhenPresent(): PropertyDecorator {
  return ValidateIf(isPresent);
}

/** Validate the field only when it holds a value: absent and `null` both mean "no value". */
export function UnlessNull(): PropertyDecorator {
  return ValidateIf((_: object, value: unknown) => value !== undefined && value !== null);
}

/** Text of `min`..`max` characters with at least one non-space character, every failure reported as `message`. */
export function NonBlankText(min: number, max: number, message: string): PropertyDecorator {
  return applyDecorators(IsString({ message }), Length(min, max, { message }), Matches(/\S/, { message }));
}

/**
 * One of `values`, matched ignoring case: the text becomes the value as the enum spells it before validation,
 * and anything else is reported as `message`.
 */
export function OneOfIgnoringCase(values: readonly string[], message: string): PropertyDecorator {
  const toCanonical = Transform(({ value }) =>
    typeof value === 'string' ? (values.find((v) => v.toLowerCase() === value.toLowerCase()) ?? value) : value,
  );
  return applyDecorators(toCanonical, IsIn([...values], { message }));
}

/** A whole number from `min` to `max`, every failure (text, fractions, out of range) reported once as `message`. */
export function WholeNumber(min: number, max: number, message: string): PropertyDecorator {
  return ValidateBy(
    {
      name: 'wholeNumber',
      validator: { validate: (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max },
    },
    { message },
  );
}

/** What a choice field reports when it is absent (where it is required), null, or holds another value. */
export interface ChoiceMessages {
  absent?: string;
  null?: string;
  other: string;
}

/** One of `values` (a domain enum's values), with the message that says what was wrong. */
export function OneOf(values: readonly string[], messages: ChoiceMessages): PropertyDecorator {
  return IsIn([...values], {
    message: ({ value }: ValidationArguments) =>
      (value === undefined ? messages.absent : value === null ? messages.null : undefined) ?? messages.other,
  });
}
