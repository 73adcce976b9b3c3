import { ValidationErrorCollector } from '@meridian/domain';
import type { ConnectorContext, ConnectorSettingDefinition } from '../connector.contract';

export type FileEncoding = 'utf-8' | 'utf-8-bom' | 'latin1';
export type FileMode = 'Import' | 'Export' | 'Bidirectional';

/** The settings schema of the File (CSV) connector. Names are part of the API: connected systems store them. */
export const FILE_CONNECTOR_SETTINGS: readonly ConnectorSettingDefinition[] = [
  {
    name: 'filePath',
    displayName: 'File path',
    type: 'FilePath',
    required: true,
    secret: false,
    maxLength: 1024,
    description:
      'Path of the CSV file relative to the connector-files root (MERIDIAN_CONNECTOR_FILES_ROOT), e.g. "hr/people.csv". ' +
      'Absolute paths, ".." segments that leave the root and symbolic links that resolve outside it are refused.',
  },
  {
    name: 'delimiter',
    displayName: 'Delimiter',
    type: 'String',
    required: false,
    secret: false,
    defaultValue: ',',
    maxLength: 2,
    description: 'Field delimiter: one character, or "\\t" for tab-separated files.',
  },
  {
    name: 'quote',
    displayName: 'Quote character',
    type: 'String',
    required: false,
    secret: false,
    defaultValue: '"',
    maxLength: 1,
    description: 'Character that encloses fields containing the delimiter, quotes or line breaks; doubled inside a field to escape it.',
  },
  {
    name: 'encoding',
    displayName: 'Encoding',
    type: 'Enum',
    required: false,
    secret: false,
    defaultValue: 'utf-8',
    allowedValues: ['utf-8', 'utf-8-bom', 'latin1'],
    description:
      'Character encoding. A byte order mark is always skipped on read (and a UTF-8 BOM means UTF-8 whatever this says); ' +
      '"utf-8-bom" writes one on export.',
  },
  {
    name: 'multiValueDelimiter',
    displayName: 'Multi-value delimiter',
    type: 'String',
    required: false,
    secret: false,
    defaultValue: '|',
    maxLength: 10,
    description: 'Separates the values of a multi-valued attribute inside one field, e.g. "a@example.com|b@example.com".',
  },
  {
    name: 'objectType',
    displayName: 'Object type',
    type: 'String',
    required: false,
    secret: false,
    defaultValue: 'person',
    maxLength: 255,
    description: 'Object type of every row when no object type column is set.',
  },
  {
    name: 'objectTypeColumn',
    displayName: 'Object type column',
    type: 'String',
    required: false,
    secret: false,
    maxLength: 255,
    description:
      'Column holding each row\'s object type (e.g. "type" with values "person" and "group"). When set, schema discovery ' +
      'finds one object type per distinct value in the sample rows and "Object type" is ignored.',
  },
  {
    name: 'mode',
    displayName: 'Mode',
    type: 'Enum',
    required: false,
    secret: false,
    defaultValue: 'Import',
    allowedValues: ['Import', 'Export', 'Bidirectional'],
    description: 'Import reads the file, Export writes it, Bidirectional does both.',
  },
  {
    name: 'sampleRows',
    displayName: 'Sample rows',
    type: 'Integer',
    required: false,
    secret: false,
    defaultValue: 1000,
    minimum: 1,
    maximum: 100000,
    description: 'Number of data rows read by schema discovery to infer attribute types, plurality and the external ID.',
  },
];

/** Settings of one File (CSV) connected system, checked and with defaults applied. */
export interface FileSettings {
  filePath: string;
  delimiter: string;
  quote: string;
  encoding: FileEncoding;
  /** Node name of the encoding used for reading and writing. */
  nodeEncoding: 'utf8' | 'latin1';
  writeBom: boolean;
  multiValueDelimiter: string;
  objectType: string;
  objectTypeColumn: string | null;
  mode: FileMode;
  sampleRows: number;
}

type RawSettings = ConnectorContext['settings'];

function text(settings: RawSettings, name: string): string | null {
  const hit = Object.keys(settings).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = hit === undefined ? undefined : settings[hit];
  if (value === undefined || value === null || value === '') return null;
  return String(value);
}

function defaultOf(name: string): string | number | boolean | null | undefined {
  return FILE_CONNECTOR_SETTINGS.find((d) => d.name === name)?.defaultValue;
}

/**
 * Checks the settings beyond what the generic schema validation can express (one-character delimiter,
 * distinct delimiter and quote, …) and fills in defaults. Errors are VALIDATION_ERRORs naming `settings.<name>`.
 */
export function parseFileSettings(settings: RawSettings): FileSettings {
  const errors = new ValidationErrorCollector();
  const filePath = text(settings, 'filePath');
  if (!filePath) errors.add('settings.filePath', 'File path is required.');

  let delimiter = text(settings, 'delimiter') ?? String(defaultOf('delimiter'));
  if (delimiter === '\\t') delimiter = '\t';
  if ([...delimiter].length !== 1) errors.add('settings.delimiter', 'Delimiter must be one character (or "\\t" for tab).');
  else if (delimiter === '\r' || delimiter === '\n') errors.add('settings.delimiter', 'Delimiter cannot be a line break.');

  const quote = text(settings, 'quote') ?? String(defaultOf('quote'));
  if ([...quote].length !== 1) errors.add('settings.quote', 'Quote character must be one character.');
  else if (quote === delimiter) errors.add('settings.quote', 'Quote character and delimiter must differ.');
  else if (quote === '\r' || quote === '\n') errors.add('settings.quote', 'Quote character cannot be a line break.');

  const encodingText = (text(settings, 'encoding') ?? 'utf-8').toLowerCase();
  const encoding = (['utf-8', 'utf-8-bom', 'latin1'] as const).find((e) => e === encodingText);
  if (!encoding) errors.add('settings.encoding', 'Encoding must be one of utf-8, utf-8-bom, latin1.');

  const multiValueDelimiter = text(settings, 'multiValueDelimiter') ?? String(defaultOf('multiValueDelimiter'));
  if (/[\r\n]/.test(multiValueDelimiter)) errors.add('settings.multiValueDelimiter', 'Multi-value delimiter cannot contain a line break.');

  const objectType = (text(settings, 'objectType') ?? String(defaultOf('objectType'))).trim();
  if (!objectType) errors.add('settings.objectType', 'Object type cannot be blank.');
  const objectTypeColumn = text(settings, 'objectTypeColumn');

  const modeText = (text(settings, 'mode') ?? 'Import').toLowerCase();
  const mode = (['Import', 'Export', 'Bidirectional'] as const).find((m) => m.toLowerCase() === modeText);
  if (!mode) errors.add('settings.mode', 'Mode must be one of Import, Export, Bidirectional.');

  const sampleText = text(settings, 'sampleRows');
  const sampleRows = sampleText === null ? Number(defaultOf('sampleRows')) : Number(sampleText);
  if (!Number.isSafeInteger(sampleRows) || sampleRows < 1 || sampleRows > 100_000)
    errors.add('settings.sampleRows', 'Sample rows must be a whole number from 1 to 100000.');

  errors.throwIfAny('One or more File (CSV) connector settings are invalid.');
  return {
    filePath: filePath!,
    delimiter,
    quote,
    encoding: encoding!,
    nodeEncoding: encoding === 'latin1' ? 'latin1' : 'utf8',
    writeBom: encoding === 'utf-8-bom',
    multiValueDelimiter,
    objectType,
    objectTypeColumn,
    mode: mode!,
    sampleRows,
  };
}
