import { DomainError } from '@meridian/domain';
import type { ConnectorSettingDefinition } from './connector.contract';
import { validateConnectorSettings } from './connector-settings';
import { ConnectorRegistry } from './connector-registry';

const defs: ConnectorSettingDefinition[] = [
  { name: 'filePath', displayName: 'File path', description: '', type: 'FilePath', required: true, secret: false, maxLength: 10 },
  { name: 'delimiter', displayName: 'Delimiter', description: '', type: 'String', required: false, secret: false, defaultValue: ',' },
  {
    name: 'pageSize',
    displayName: 'Page size',
    description: '',
    type: 'Integer',
    required: false,
    secret: false,
    minimum: 1,
    maximum: 100,
  },
  {
    name: 'mode',
    displayName: 'Mode',
    description: '',
    type: 'Enum',
    required: false,
    secret: false,
    allowedValues: ['Import', 'Export'],
    defaultValue: 'Import',
  },
  { name: 'verify', displayName: 'Verify', description: '', type: 'Boolean', required: false, secret: false },
  { name: 'password', displayName: 'Password', description: '', type: 'Password', required: true, secret: true },
];

function fields(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return Object.keys((e as DomainError).validationErrors ?? {}).sort();
  }
  throw new Error('accepted');
}

describe('validateConnectorSettings', () => {
  it('splits plain and secret values and fills defaults', () => {
    expect(validateConnectorSettings(defs, { filePath: 'a.csv', password: 'p', mode: 'export', pageSize: 5 })).toEqual({
      plain: { filePath: 'a.csv', delimiter: ',', pageSize: 5, mode: 'Export', verify: null },
      secrets: { password: 'p' },
    });
  });

  it('names every invalid setting', () => {
    expect(
      fields(() =>
        validateConnectorSettings(defs, { pageSize: 0, mode: 'Sideways', verify: 'yes', bogus: 1, filePath: 'far-too-long.csv' }),
      ),
    ).toEqual(['settings.bogus', 'settings.filePath', 'settings.mode', 'settings.pageSize', 'settings.password', 'settings.verify']);
  });

  it('keeps an existing secret when an update leaves it out, and clears it when sent as null', () => {
    const previous = { plain: { filePath: 'a.csv' }, secrets: { password: 'old' } };
    expect(validateConnectorSettings(defs, { delimiter: ';' }, previous)).toEqual({
      plain: { filePath: 'a.csv', delimiter: ';', pageSize: null, mode: 'Import', verify: null },
      secrets: { password: 'old' },
    });
    expect(fields(() => validateConnectorSettings(defs, { password: null }, previous))).toEqual(['settings.password']);
  });
});

describe('ConnectorRegistry', () => {
  it('requires a known type and names the field otherwise', () => {
    const registry = new ConnectorRegistry([{ type: 'File' } as never]);
    expect(registry.require('file').type).toBe('File');
    expect(fields(() => registry.require('Nope'))).toEqual(['connectorType']);
  });
});
