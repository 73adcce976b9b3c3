import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsIn, IsString, Length, Matches, ValidateBy, ValidateIf, ValidationArguments, ValidationOptions } from 'class-validator';

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

/** The largest id a PostgreSQL integer column holds. */
export const MAX_INTEGER_ID = 2_147_483_647;

/**
 * Whole numbers outside `min`..`max` are refused with `message`; anything that is not a whole number is left to
 * the field's type rule, so a value gets one message. With `{ each: true }` every item of an array is checked.
 */
export function WholeNumberWithin(
  range: { min?: number; max?: number },
  message: string,
  options: ValidationOptions = {},
): PropertyDecorator {
  const { min = -Infinity, max = Infinity } = range;
  return ValidateBy(
    {
      name: 'wholeNumberWithin',
      validator: { validate: (value: unknown) => !Number.isInteger(value) || ((value as number) >= min && (value as number) <= max) },
    },
    { ...options, message },
  );
}

/** Text of at most `max` characters: anything but text is reported as `typeMessage`, longer text as `lengthMessage`. */
export function TextOfAtMost(max: number, typeMessage: string, lengthMessage: string): PropertyDecorator {
  return ValidateBy(
    { name: 'textOfAtMost', validator: { validate: (value: unknown) => typeof value === 'string' && value.length <= max } },
    { message: ({ value }: ValidationArguments) => (typeof value === 'string' ? lengthMessage : typeMessage) },
  );
}

/** Text with at least one non-space character, else `message`; values that are not text are left to the field's type rule. */
export function NotBlank(message: string): PropertyDecorator {
  return ValidateBy(
    { name: 'notBlank', validator: { validate: (value: unknown) => typeof value !== 'string' || /\S/.test(value) } },
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

/** Input a domain parser refused, carried from the transform to the validator with the parser's reason. */
class Refused {
  constructor(readonly reason: string) {}
}

/**
 * A field read by one of the domain's parsers: before validation the value becomes what the parser reads, and input
 * it refuses is reported with its reason. With `typeMessage`, anything but text and null is refused with it instead.
 */
export function ReadBy<T>(parse: (raw: unknown) => { value: T } | { error: string }, typeMessage?: string): PropertyDecorator {
  const read = Transform(({ value }) => {
    if (value === undefined) return value;
    if (typeMessage && typeof value !== 'string' && value !== null) return new Refused(typeMessage);
    const reading = parse(value);
    return 'error' in reading ? new Refused(reading.error) : reading.value;
  });
  const validate = ValidateBy(
    { name: 'readBy', validator: { validate: (value: unknown) => !(value instanceof Refused) } },
    { message: ({ value }: ValidationArguments) => (value as Refused).reason },
  );
  return applyDecorators(read, validate);
}
