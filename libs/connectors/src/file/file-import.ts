import { hash } from 'node:crypto';
import { DomainError } from '@meridian/domain';
import type {
  AttributeValue,
  ConnectorAttributeType,
  ConnectorContext,
  ImportedObject,
  ImportObjectError,
  ImportPage,
  SelectedSchema,
} from '../connector.contract';
import { type CsvEvent, openCsv } from './csv-reader';
import { checkHeader, FileHeader } from './file-schema';
import type { FileSettings } from './file-settings';
import { parseValue } from './value-types';

/** Error types of per-object import errors raised by this connector. */
export const FILE_IMPORT_ERROR_TYPES = {
  malformedRow: 'MalformedRow',
  couldNotMatchObjectType: 'CouldNotMatchObjectType',
  attributeValue: 'ImportAttributeValueError',
} as const;

interface ColumnPlan {
  name: string;
  column: number;
  type: ConnectorAttributeType;
  multi: boolean;
}

interface TypePlan {
  name: string;
  columns: ColumnPlan[];
  externalIdColumn: number;
}

/** How rows become objects: per object type, which columns to read and how to type them. */
class ImportPlan {
  private readonly byName = new Map<string, TypePlan>();
  private readonly untyped: ColumnPlan[];

  constructor(
    private readonly header: FileHeader,
    private readonly settings: FileSettings,
    private readonly schema: SelectedSchema | undefined,
  ) {
    const columnOf = (name: string) => {
      const exact = header.columns.indexOf(name);
      return exact >= 0 ? exact : header.columns.findIndex((c) => c.toLowerCase() === name.toLowerCase());
    };
    this.untyped = header.columns
      .map((name, column) => ({ name, column, type: 'String' as const, multi: false }))
      .filter((c) => c.column !== header.typeColumn);
    if (!schema) return;
    const missing: string[] = [];
    for (const type of schema.objectTypes) {
      const columns: ColumnPlan[] = [];
      for (const attribute of type.attributes) {
        const column = columnOf(attribute.name);
        if (column < 0 || column === header.typeColumn) missing.push(`${type.name}.${attribute.name}`);
        else columns.push({ name: attribute.name, column, type: attribute.type, multi: attribute.plurality === 'Multi' });
      }
      const externalIdColumn = type.externalIdAttribute ? columnOf(type.externalIdAttribute) : -1;
      this.byName.set(type.name.toLowerCase(), { name: type.name, columns, externalIdColumn });
    }
    if (missing.length > 0) {
      throw DomainError.badRequest(
        `The file "${settings.filePath}" has no column for selected attribute(s) ${missing.join(', ')}. ` +
          'Restore the column(s) or import the schema again and review the selection.',
      );
    }
    if (header.typeColumn < 0 && !this.byName.has(settings.objectType.toLowerCase())) {
      throw DomainError.badRequest(
        `Object type "${settings.objectType}" of this file is not among the selected object types (${schema.objectTypes.map((t) => t.name).join(', ') || 'none'}).`,
      );
    }
  }

  /** The plan for a row's object type; null when the type is not selected. */
  typeOf(values: readonly string[]): { name: string; plan: TypePlan | null } {
    const name = this.header.typeColumn < 0 ? this.settings.objectType : values[this.header.typeColumn].trim();
    if (!this.schema) return { name, plan: name ? { name, columns: this.untyped, externalIdColumn: -1 } : null };
    return { name, plan: name ? (this.byName.get(name.toLowerCase()) ?? null) : null };
  }
}

function typed(column: ColumnPlan, raw: string): AttributeValue | undefined {
  return column.type === 'String' ? raw : parseValue(column.type, raw);
}

/**
 * Reads the file page by page: `pageSize` objects and errors at most per page, the next page read only
 * when the consumer asks for it (so memory is bounded by the page size). See docs/connectors/file.md.
 */
export async function* importFilePages(
  filePath: string,
  settings: FileSettings,
  ctx: ConnectorContext,
  pageSize: number,
): AsyncGenerator<ImportPage> {
  ctx.signal?.throwIfAborted();
  const doc = await openCsv(filePath, { delimiter: settings.delimiter, quote: settings.quote, encoding: settings.nodeEncoding });
  if (!doc) throw DomainError.badRequest(`The file "${settings.filePath}" is empty: a header row naming the columns is needed.`);
  try {
    const header = checkHeader(doc.header, settings);
    const plan = new ImportPlan(header, settings, ctx.schema);
    const mvd = settings.multiValueDelimiter;
    // A row's fingerprint: the header (which names its fields; by its hash, shorter to hash again per row)
    // and its raw fields. The settings that shape the values (delimiters, value types) are the engine's to
    // add (ImportedObject.fingerprint).
    const fingerprintPrefix = `${hash('sha256', JSON.stringify(doc.header), 'base64')}\n`;
    let objects: ImportedObject[] = [];
    let errors: ImportObjectError[] = [];
    /** One record or error of the file, added to the page being made. */
    const take = (event: CsvEvent): void => {
      const source = `line ${event.line}`;
      if (event.kind === 'error') {
        errors.push({
          source,
          errorType: FILE_IMPORT_ERROR_TYPES.malformedRow,
          message: `Malformed row: ${event.message}`,
          externalId: null,
        });
      } else if (event.values.length !== header.columns.length) {
        const { plan: typePlan } = event.values.length > header.typeColumn ? plan.typeOf(event.values) : { plan: null };
        const idColumn = typePlan?.externalIdColumn ?? -1;
        errors.push({
          source,
          errorType: FILE_IMPORT_ERROR_TYPES.malformedRow,
          message: `Malformed row: it has ${event.values.length} field(s) but the header has ${header.columns.length} column(s).`,
          externalId: idColumn >= 0 && idColumn < event.values.length ? event.values[idColumn] || null : null,
        });
      } else {
        const { name, plan: typePlan } = plan.typeOf(event.values);
        if (!typePlan) {
          errors.push({
            source,
            errorType: FILE_IMPORT_ERROR_TYPES.couldNotMatchObjectType,
            externalId: null,
            message: name
              ? `Object type "${name}" is not among the selected object types.`
              : `The row has no object type (column "${settings.objectTypeColumn}" is empty).`,
          });
        } else {
          const externalId = typePlan.externalIdColumn >= 0 ? event.values[typePlan.externalIdColumn] || null : null;
          const attributes: ImportedObject['attributes'] = {};
          for (const column of typePlan.columns) {
            const raw = event.values[column.column];
            if (raw === '') continue;
            if (!column.multi) {
              const value = typed(column, raw);
              if (value === undefined) errors.push(valueError(source, externalId, column, raw));
              else attributes[column.name] = value;
              continue;
            }
            const values: AttributeValue[] = [];
            const bad: string[] = [];
            for (const part of mvd ? raw.split(mvd) : [raw]) {
              if (part === '') continue;
              const value = typed(column, part);
              if (value === undefined) bad.push(part);
              else values.push(value);
            }
            if (bad.length > 0) errors.push(valueError(source, externalId, column, bad.join(mvd)));
            if (values.length > 0) attributes[column.name] = values;
          }
          objects.push({
            objectType: typePlan.name,
            attributes,
            change: 'Upsert',
            source,
            fingerprint: fingerprintPrefix + JSON.stringify(event.values),
          });
        }
      }
    };
    for await (const batch of doc.batches) {
      for (const event of batch) {
        take(event);
        if (objects.length + errors.length >= pageSize) {
          yield { objects, errors };
          objects = [];
          errors = [];
          ctx.signal?.throwIfAborted();
        }
      }
    }
    if (objects.length + errors.length > 0) yield { objects, errors };
  } finally {
    await doc.batches.return(undefined);
  }
}

function valueError(source: string, externalId: string | null, column: ColumnPlan, raw: string): ImportObjectError {
  const shown = raw.length > 100 ? `${raw.slice(0, 100)}…` : raw;
  return {
    source,
    externalId,
    errorType: FILE_IMPORT_ERROR_TYPES.attributeValue,
    message: `Value "${shown}" of attribute "${column.name}" is not a valid ${column.type}; the object is imported without it.`,
  };
}
