import { ValidationErrorCollector } from '@meridian/domain';
import type { ConnectorSettingDefinition } from './connector.contract';

export type SettingInputValue = string | number | boolean | null;

export interface ValidatedSettings {
  /** Non-secret values by setting name (defaults filled in). */
  plain: Record<string, SettingInputValue>;
  /** Secret values by setting name (to be sealed; never returned). */
  secrets: Record<string, string>;
}

/**
 * Validates settings supplied by an administrator against a connector's settings schema.
 * `previousSecrets` lets an update omit secrets it does not change (secrets are write-only, so
 * clients cannot send them back). Errors name the setting: `settings.<name>`.
 */
export function validateConnectorSettings(
  definitions: readonly ConnectorSettingDefinition[],
  input: Record<string, unknown> | null | undefined,
  previous: { plain?: Record<string, SettingInputValue>; secrets?: Record<string, string> } = {},
): ValidatedSettings {
  const errors = new ValidationErrorCollector();
  const values = input ?? {};
  const byName = new Map(definitions.map((d) => [d.name.toLowerCase(), d]));
  for (const name of Object.keys(values)) {
    if (!byName.has(name.toLowerCase()))
      errors.add(
        `settings.${name}`,
        `"${name}" is not a setting of this connector; known settings: ${definitions.map((d) => d.name).join(', ')}.`,
      );
  }
  const supplied = new Map(Object.entries(values).map(([k, v]) => [k.toLowerCase(), v]));
  const plain: Record<string, SettingInputValue> = {};
  const secrets: Record<string, string> = {};
  for (const def of definitions) {
    const field = `settings.${def.name}`;
    const has = supplied.has(def.name.toLowerCase());
    let value = has ? supplied.get(def.name.toLowerCase()) : undefined;
    if (def.secret) {
      if (value === undefined || value === null || value === '') {
        const kept = previous.secrets?.[def.name];
        if (kept !== undefined && !(has && value === null)) secrets[def.name] = kept;
        else if (def.required) errors.add(field, `${def.displayName} is required.`);
        continue;
      }
      if (typeof value !== 'string') {
        errors.add(field, `${def.displayName} must be text.`);
        continue;
      }
      if (def.maxLength !== undefined && value.length > def.maxLength) {
        errors.add(field, `${def.displayName} must be at most ${def.maxLength} characters.`);
        continue;
      }
      secrets[def.name] = value;
      continue;
    }
    if (!has) value = previous.plain?.[def.name] ?? def.defaultValue ?? null;
    if (value === undefined || value === null || value === '') {
      if (def.required) errors.add(field, `${def.displayName} is required.`);
      plain[def.name] = null;
      continue;
    }
    switch (def.type) {
      case 'Integer':
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
          errors.add(field, `${def.displayName} must be a whole number.`);
          break;
        }
        if (def.minimum !== undefined && value < def.minimum) {
          errors.add(field, `${def.displayName} must be at least ${def.minimum}.`);
          break;
        }
        if (def.maximum !== undefined && value > def.maximum) {
          errors.add(field, `${def.displayName} must be at most ${def.maximum}.`);
          break;
        }
        plain[def.name] = value;
        break;
      case 'Boolean':
        if (typeof value !== 'boolean') {
          errors.add(field, `${def.displayName} must be true or false.`);
          break;
        }
        plain[def.name] = value;
        break;
      case 'Enum': {
        const match = typeof value === 'string' ? def.allowedValues?.find((a) => a.toLowerCase() === value.toLowerCase()) : undefined;
        if (!match) {
          errors.add(field, `${def.displayName} must be one of ${(def.allowedValues ?? []).join(', ')}.`);
          break;
        }
        plain[def.name] = match;
        break;
      }
      default:
        if (typeof value !== 'string') {
          errors.add(field, `${def.displayName} must be text.`);
          break;
        }
        if (def.maxLength !== undefined && value.length > def.maxLength) {
          errors.add(field, `${def.displayName} must be at most ${def.maxLength} characters.`);
          break;
        }
        plain[def.name] = value;
    }
  }
  errors.throwIfAny('One or more connector settings are invalid.');
  return { plain, secrets };
}
