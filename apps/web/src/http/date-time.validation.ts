import { parseDateTime } from '@meridian/domain';
import { Transform } from 'class-transformer';
import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * A date-time field read by Meridian's one date/time parser (ISO 8601; no offset means UTC; 30 February
 * is refused): the text becomes a Date before validation, and text the parser refuses is reported with
 * `message`. Null and absent values are left to the field's other decorators.
 */
export function IsDateTime(message: string, options: ValidationOptions = {}): PropertyDecorator {
  const toDate = Transform(({ value }) => (typeof value === 'string' ? (parseDateTime(value) ?? value) : value));
  return (target, propertyName) => {
    toDate(target, propertyName);
    registerDecorator({
      name: 'isDateTime',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message, ...options },
      validator: { validate: (value: unknown) => value instanceof Date },
    });
  };
}
