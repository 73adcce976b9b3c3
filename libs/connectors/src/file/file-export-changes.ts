import { DomainError, ErrorCode } from '@meridian/domain';
import type { AttributeValue, ExportChange, SelectedSchema } from '../connector.contract';
import type { FileSettings } from './file-settings';
import { parseValue } from './value-types';

export type SchemaType = SelectedSchema['objectTypes'][number];

/** A change that passed validation, with the external ID of the row it applies to. */
export interface PreparedChange {
  change: ExportChange;
  type: SchemaType;
  externalId: string;
}

/** Why one change cannot be applied; it fails that change only. */
export class ChangeFailure extends Error {}

const OPERATIONS = new Set(['Add', 'Replace', 'Remove', 'RemoveAll']);

export const sameName = (a: string, b: string | null) => b !== null && a.trim().toLowerCase() === b.trim().toLowerCase();

/** Case-insensitive column lookup over a header that grows (only at the end) as new attributes are written. */
export class Columns {
  readonly names: string[];
  private readonly index = new Map<string, number>();

  constructor(names: readonly string[]) {
    this.names = [...names];
    this.names.forEach((n, i) => this.index.set(n.toLowerCase(), i));
  }

  of(name: string): number {
    return this.index.get(name.toLowerCase()) ?? -1;
  }

  ensure(name: string): number {
    const existing = this.of(name);
    if (existing >= 0) return existing;
    this.names.push(name);
    this.index.set(name.toLowerCase(), this.names.length - 1);
    return this.names.length - 1;
  }
}

/**
 * Keys rows and changes by object type and external ID, comparing IDs as their type does: GUIDs
 * ignore case and braces, integers ignore leading zeros.
 */
export class RowKeys {
  private readonly types: Map<string, SchemaType>;
  private readonly idTypes = new Map<SchemaType, string | undefined>();

  constructor(
    schema: SelectedSchema | undefined,
    private readonly settings: FileSettings,
    private readonly columns: Columns,
    private readonly typeColumn: number,
  ) {
    this.types = new Map((schema?.objectTypes ?? []).map((t) => [t.name.toLowerCase(), t]));
  }

  /** The key of a change's row. */
  of(type: SchemaType, externalId: string): string {
    return `${type.name.toLowerCase()}\u0000${this.normalise(type, externalId)}`;
  }

  /** The key of a row of the file, or null when its type is not selected or it has no external ID. */
  ofRow(row: readonly string[]): string | null {
    const typeName = this.typeColumn >= 0 ? (row[this.typeColumn] ?? '').trim() : this.settings.objectType;
    const type = this.types.get(typeName.toLowerCase());
    if (!type?.externalIdAttribute) return null;
    const column = this.columns.of(type.externalIdAttribute);
    const id = column >= 0 ? row[column] : undefined;
    return id ? this.of(type, id) : null;
  }

  private normalise(type: SchemaType, value: string): string {
    let idType = this.idTypes.get(type);
    if (!this.idTypes.has(type)) {
      idType = type.attributes.find((a) => sameName(a.name, type.externalIdAttribute))?.type;
      this.idTypes.set(type, idType);
    }
    const parsed = idType === 'Guid' || idType === 'Integer' ? parseValue(idType, value) : undefined;
    return parsed === undefined || parsed === null ? value : String(parsed);
  }
}

function fitsLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return false;
  return true;
}

function formatValue(value: AttributeValue, settings: FileSettings, attribute: string): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'boolean') text = value ? 'true' : 'false';
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ChangeFailure(`Attribute "${attribute}" has a value that is not a finite number.`);
    text = String(value);
  } else throw new ChangeFailure(`Attribute "${attribute}" has a value of unsupported type ${value === null ? 'null' : typeof value}.`);
  if (settings.nodeEncoding === 'latin1' && !fitsLatin1(text)) {
    throw new ChangeFailure(`Attribute "${attribute}" has a character that Latin-1 cannot hold; use encoding utf-8.`);
  }
  return text;
}

/** A Create's external ID: its value for the external ID attribute, else `change.externalId`. */
function externalIdValue(change: ExportChange, type: SchemaType): string | null {
  const attr = type.externalIdAttribute;
  const entry = attr
    ? change.attributes.find((a) => sameName(a.name, attr) && (a.operation === 'Replace' || a.operation === 'Add'))
    : undefined;
  const value = entry?.values.find((v) => v !== null && v !== '');
  if (value !== undefined && value !== null) return String(value);
  return change.externalId ? change.externalId : null;
}

function isMulti(name: string, operation: string, values: readonly AttributeValue[], type: SchemaType): boolean {
  const attribute = type.attributes.find((a) => a.name.toLowerCase() === name.toLowerCase());
  if (attribute) return attribute.plurality === 'Multi';
  return operation === 'Add' || operation === 'Remove' || values.length > 1;
}

/**
 * Checks a change on its own, before any row is touched; throws ChangeFailure with the reason. Every
 * value is formatted here, so applying a prepared change cannot fail.
 */
export function prepareChange(change: ExportChange, settings: FileSettings, schema: SelectedSchema | undefined): PreparedChange {
  if (!settings.objectTypeColumn && change.objectType.toLowerCase() !== settings.objectType.toLowerCase()) {
    throw new ChangeFailure(`This file holds objects of type "${settings.objectType}", not "${change.objectType}".`);
  }
  const type = schema?.objectTypes.find((t) => t.name.toLowerCase() === change.objectType.toLowerCase());
  if (!type) throw new ChangeFailure(`Object type "${change.objectType}" is not selected for this connected system.`);
  if (!type.externalIdAttribute)
    throw new ChangeFailure(`Object type "${type.name}" has no external ID attribute, so rows cannot be identified.`);
  for (const a of change.attributes) {
    if (sameName(a.name, settings.objectTypeColumn))
      throw new ChangeFailure(`"${a.name}" is the object type column and cannot be written as an attribute.`);
    if (!OPERATIONS.has(a.operation)) throw new ChangeFailure(`Unknown attribute operation "${String(a.operation)}" on "${a.name}".`);
    if (!Array.isArray(a.values)) throw new ChangeFailure(`Attribute "${a.name}" has no value list.`);
    const multi = isMulti(a.name, a.operation, a.values, type);
    for (const v of a.values) {
      if (v === null) continue;
      const text = formatValue(v, settings, a.name);
      if (multi && settings.multiValueDelimiter && text.includes(settings.multiValueDelimiter)) {
        throw new ChangeFailure(
          `A value of multi-valued attribute "${a.name}" contains the multi-value delimiter "${settings.multiValueDelimiter}".`,
        );
      }
    }
    if ((a.operation === 'Replace' || a.operation === 'Add') && !multi && a.values.filter((v) => v !== null).length > 1) {
      throw new ChangeFailure(`Single-valued attribute "${a.name}" was given ${a.values.length} values.`);
    }
  }
  const externalId = change.changeType === 'Create' ? externalIdValue(change, type) : change.externalId || null;
  if (externalId) formatValue(externalId, settings, type.externalIdAttribute);
  if (!externalId) {
    throw new ChangeFailure(
      change.changeType === 'Create'
        ? `The new object has no value for its external ID attribute "${type.externalIdAttribute}".`
        : `${change.changeType} needs the external ID of the object.`,
    );
  }
  if (change.changeType === 'Update') {
    for (const a of change.attributes) {
      if (!sameName(a.name, type.externalIdAttribute)) continue;
      const values = a.values.filter((v) => v !== null).map(String);
      if (a.operation === 'Remove' || a.operation === 'RemoveAll' || values.some((v) => v !== externalId)) {
        throw new ChangeFailure(`The external ID attribute "${a.name}" cannot be changed or removed.`);
      }
    }
  }
  return { change, type, externalId };
}

/** Adds a column for every attribute the change writes (and for its external ID). */
export function ensureColumns(columns: Columns, { change, type }: PreparedChange, settings: FileSettings): void {
  if (type.externalIdAttribute) columns.ensure(type.externalIdAttribute);
  for (const a of change.attributes) if (!sameName(a.name, settings.objectTypeColumn)) columns.ensure(a.name);
}

/**
 * Applies prepared changes for one row in order (a Create after a Delete re-creates it; a Create of a
 * row that exists rewrites it from the change) and returns the row to write, or null when it is gone.
 * The caller has checked that an Update has a row; `start` may be narrower than the header.
 */
export function applyChanges(
  start: readonly string[] | null,
  changes: readonly PreparedChange[],
  columns: Columns,
  typeColumn: number,
  settings: FileSettings,
): string[] | null {
  let row = start ? padRow([...start], columns.names.length) : null;
  for (const { change, type, externalId } of changes) {
    if (change.changeType === 'Delete') {
      row = null;
      continue;
    }
    let next: string[];
    if (change.changeType === 'Create') {
      next = columns.names.map(() => '');
      if (typeColumn >= 0) next[typeColumn] = type.name;
      next[columns.of(type.externalIdAttribute!)] = externalId;
    } else {
      if (!row) {
        throw new DomainError(
          ErrorCode.InternalError,
          `No row with ${type.externalIdAttribute} = "${externalId}" was found for an update that was accepted; nothing was written. Export again.`,
        );
      }
      next = row;
    }
    for (const a of change.attributes) applyAttribute(next, columns.of(a.name), a, isMulti(a.name, a.operation, a.values, type), settings);
    row = next;
  }
  return row;
}

/** Fills a row written before the header grew with empty fields. */
export function padRow(row: string[], width: number): string[] {
  while (row.length < width) row.push('');
  return row;
}

function applyAttribute(
  row: string[],
  column: number,
  a: ExportChange['attributes'][number],
  multi: boolean,
  settings: FileSettings,
): void {
  const values = a.values.filter((v): v is Exclude<AttributeValue, null> => v !== null).map((v) => formatValue(v, settings, a.name));
  const mvd = settings.multiValueDelimiter;
  const current = row[column] ?? '';
  const currentValues = current === '' ? [] : multi && mvd ? current.split(mvd).filter((v) => v !== '') : [current];
  switch (a.operation) {
    case 'RemoveAll':
      row[column] = '';
      return;
    case 'Replace':
      row[column] = multi ? values.join(mvd) : (values[0] ?? '');
      return;
    case 'Add':
      if (!multi) {
        row[column] = values[0] ?? current;
        return;
      }
      row[column] = [...new Set([...currentValues, ...values])].join(mvd);
      return;
    case 'Remove':
      row[column] = currentValues.filter((v) => !values.includes(v)).join(mvd);
      return;
  }
}
