import { relativeFilePathProblem } from '@meridian/domain';
import { registerDecorator } from 'class-validator';

/**
 * A file path under the connector files root (relative, no "..", no control characters, 1-1000 characters),
 * refused with the domain's reason after the field name. Non-text values are left to the field's type rule.
 */
export function IsConnectorFilePath(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isConnectorFilePath',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || relativeFilePathProblem(value) === null,
        defaultMessage: (args) => `${args?.property} ${relativeFilePathProblem(String(args?.value))}`,
      },
    });
}
