import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { DomainError } from '@meridian/domain';
import type { AttributeValue, ConnectorContext, ExportChange, ExportResult, SelectedSchema } from '../connector.contract';
import { openCsv } from './csv-reader';
import { checkHeader } from './file-schema';
import { parseValue } from './value-types';
import type { FileSettings } from './file-settings';

type SchemaType = SelectedSchema['objectTypes'][number];

// Exports to one file are serialised inside this process. Two processes (e.g. two workers) exporting
// to the same file are kept apart by the engine's per-connected-system lock, not by this map.
const fileLocks = new Map<string, Promise<void>>();

/** Runs `fn` while holding the in-process lock of `key` (FIFO). */
export async function withFileLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = fileLocks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const chained = previous.then(() => current);
  fileLocks.set(key, chained);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (fileLocks.get(key) === chained) fileLocks.delete(key);
  }
}

/** A change that passed validation, with the key of the row it applies to. */
interface PreparedChange {
  change: ExportChange;
  type: SchemaType;
  externalId: string;
}

class ChangeFailure extends Error {}

/** Writes rows as CSV text in the file's encoding, buffering to keep write calls large. */
class CsvFileWriter {
  private pending: string[][] = [];

  constructor(private readonly handle: fsp.FileHandle, private readonly settings: FileSettings) {}

  async start(header: string[]): Promise<void> {
    if (this.settings.writeBom) await this.handle.write(Buffer.from([0xef, 0xbb, 0xbf]));
    await this.add(header);
  }

  async add(row: string[]): Promise<void> {
    this.pending.push(row);
    if (this.pending.length >= 1000) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = stringify(this.pending, {
      delimiter: this.settings.delimiter,
      quote: this.settings.quote,
      escape: this.settings.quote,
      record_delimiter: 'unix',
      eof: true,
      // A bare carriage return would end the record for a reader that auto-detects line endings.
      quoted_match: /\r/,
    });
    this.pending = [];
    await this.handle.write(Buffer.from(text, this.settings.nodeEncoding));
  }
}

/** Case-insensitive column lookup over a header that grows as new attributes are written. */
class Columns {
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

const rowKey = (type: SchemaType, externalId: string) => `${type.name.toLowerCase()}\u0000${normaliseId(type, externalId)}`;

/** External IDs compare as their type does: GUIDs ignore case and braces, integers ignore leading zeros. */
function normaliseId(type: SchemaType, value: string): string {
  const attribute = type.attributes.find((a) => sameName(a.name, type.externalIdAttribute));
  const parsed = attribute && (attribute.type === 'Guid' || attribute.type === 'Integer') ? parseValue(attribute.type, value) : undefined;
  return parsed === undefined || parsed === null ? value : String(parsed);
}

/**
 * Applies a batch of changes to a CSV file and replaces it atomically: the current file is streamed
 * into a temporary file in the same directory with the changes applied, which is flushed to disk and
 * renamed over the original. A failure at any point leaves the original untouched and removes the
 * temporary file. One result per change; see docs/connectors/file.md for the rules.
 */
export async function exportToFile(filePath: string, settings: FileSettings, ctx: ConnectorContext, batch: readonly ExportChange[]): Promise<ExportResult[]> {
  return withFileLock(filePath, () => rewriteFile(filePath, settings, ctx, batch));
}

async function rewriteFile(filePath: string, settings: FileSettings, ctx: ConnectorContext, batch: readonly ExportChange[]): Promise<ExportResult[]> {
  const results = new Map<string, ExportResult>();
  const fail = (change: ExportChange, error: string) => results.set(change.id, { id: change.id, success: false, error, confirmed: false, externalId: change.externalId });
  const byKey = new Map<string, PreparedChange[]>();
  for (const change of batch) {
    try {
      const prepared = prepareChange(change, settings, ctx.schema);
      const key = rowKey(prepared.type, prepared.externalId);
      const list = byKey.get(key);
      if (list) list.push(prepared);
      else byKey.set(key, [prepared]);
    } catch (error) {
      if (!(error instanceof ChangeFailure)) throw error;
      fail(change, error.message);
    }
  }
  if (byKey.size === 0) return batch.map((c) => results.get(c.id)!);

  const format = { delimiter: settings.delimiter, quote: settings.quote, encoding: settings.nodeEncoding };
  const existing = await fileExists(filePath) ? await openCsv(filePath, format) : null;
  const tempPath = path.join(path.dirname(filePath), `.${path.basename(filePath)}.${process.pid}.${randomUUID()}.tmp`);
  let handle: fsp.FileHandle | null = null;
  try {
    const header = existing ? checkHeader(existing.header, settings) : null;
    const columns = new Columns(header?.columns ?? []);
    if (settings.objectTypeColumn) columns.ensure(settings.objectTypeColumn.trim());
    // Every selected attribute gets a column, so the import that follows finds all of them.
    const fileTypes = (ctx.schema?.objectTypes ?? []).filter((t) => settings.objectTypeColumn || sameName(t.name, settings.objectType));
    for (const type of fileTypes) {
      if (type.externalIdAttribute) columns.ensure(type.externalIdAttribute);
      for (const a of type.attributes) if (!sameName(a.name, settings.objectTypeColumn)) columns.ensure(a.name);
    }
    for (const list of byKey.values()) {
      for (const { change, type } of list) {
        if (type.externalIdAttribute) columns.ensure(type.externalIdAttribute);
        for (const a of change.attributes) if (!sameName(a.name, settings.objectTypeColumn)) columns.ensure(a.name);
      }
    }
    const typeColumn = settings.objectTypeColumn ? columns.of(settings.objectTypeColumn.trim()) : -1;
    const schemaTypes = new Map((ctx.schema?.objectTypes ?? []).map((t) => [t.name.toLowerCase(), t]));
    const handled = new Set<string>();

    handle = await fsp.open(tempPath, 'wx');
    if (existing) await handle.chmod((await fsp.stat(filePath)).mode & 0o7777);
    const writer = new CsvFileWriter(handle, settings);
    await writer.start(columns.names);

    if (existing) {
      for await (const event of existing.rows) {
        if (event.kind === 'error') {
          throw DomainError.badRequest(`The file "${settings.filePath}" cannot be rewritten safely: line ${event.line} is malformed (${event.message}). Fix or remove that row and export again.`);
        }
        if (event.values.length !== header!.columns.length) {
          throw DomainError.badRequest(`The file "${settings.filePath}" cannot be rewritten safely: line ${event.line} has ${event.values.length} field(s) `
            + `but the header has ${header!.columns.length}. Fix or remove that row and export again.`);
        }
        let row = event.values;
        while (row.length < columns.names.length) row.push('');
        const typeName = typeColumn >= 0 ? (row[typeColumn] ?? '').trim() : settings.objectType;
        const type = schemaTypes.get(typeName.toLowerCase());
        const idColumn = type?.externalIdAttribute ? columns.of(type.externalIdAttribute) : -1;
        const key = idColumn >= 0 && row[idColumn] ? rowKey(type!, row[idColumn]) : null;
        const changes = key !== null && !handled.has(key) ? byKey.get(key) : undefined;
        if (changes) {
          handled.add(key!);
          const next = applyChanges(row, changes, columns, typeColumn, settings, results);
          if (!next) continue;
          row = next;
        }
        await writer.add(row);
      }
    }
    for (const [key, changes] of byKey) {
      if (handled.has(key)) continue;
      const row = applyChanges(null, changes, columns, typeColumn, settings, results);
      if (row) await writer.add(row);
    }
    await writer.flush();
    await handle.sync();
    await handle.close();
    handle = null;
    await fsp.rename(tempPath, filePath);
    await syncDirectory(path.dirname(filePath));
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await fsp.rm(tempPath, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    await existing?.rows.return(undefined);
  }
  return batch.map((c) => results.get(c.id)!);
}

const sameName = (a: string, b: string | null) => b !== null && a.trim().toLowerCase() === b.trim().toLowerCase();

async function fileExists(filePath: string): Promise<boolean> {
  try {
    return (await fsp.stat(filePath)).isFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Makes the rename durable (best effort: not every platform lets a directory be opened for fsync). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fsp.FileHandle | null = null;
  try {
    handle = await fsp.open(dir, 'r');
    await handle.sync();
  } catch {
    // ignored: the data itself was synced before the rename
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function externalIdValue(change: ExportChange, type: SchemaType): string | null {
  const attr = type.externalIdAttribute;
  const entry = attr ? change.attributes.find((a) => sameName(a.name, attr) && (a.operation === 'Replace' || a.operation === 'Add')) : undefined;
  const value = entry?.values.find((v) => v !== null && v !== '');
  if (value !== undefined && value !== null) return String(value);
  return change.externalId ? change.externalId : null;
}

/** Checks a change on its own (before the file is touched); throws ChangeFailure with the reason. */
function prepareChange(change: ExportChange, settings: FileSettings, schema: SelectedSchema | undefined): PreparedChange {
  if (!settings.objectTypeColumn && change.objectType.toLowerCase() !== settings.objectType.toLowerCase()) {
    throw new ChangeFailure(`This file holds objects of type "${settings.objectType}", not "${change.objectType}".`);
  }
  const type = schema?.objectTypes.find((t) => t.name.toLowerCase() === change.objectType.toLowerCase());
  if (!type) throw new ChangeFailure(`Object type "${change.objectType}" is not selected for this connected system.`);
  if (!type.externalIdAttribute) throw new ChangeFailure(`Object type "${type.name}" has no external ID attribute, so rows cannot be identified.`);
  for (const a of change.attributes) {
    if (sameName(a.name, settings.objectTypeColumn)) throw new ChangeFailure(`"${a.name}" is the object type column and cannot be written as an attribute.`);
    if (!Array.isArray(a.values)) throw new ChangeFailure(`Attribute "${a.name}" has no value list.`);
    const multi = isMulti(a.name, a.operation, a.values, type);
    for (const v of a.values) {
      if (v === null) continue;
      const text = formatValue(v, settings, a.name);
      if (multi && settings.multiValueDelimiter && text.includes(settings.multiValueDelimiter)) {
        throw new ChangeFailure(`A value of multi-valued attribute "${a.name}" contains the multi-value delimiter "${settings.multiValueDelimiter}".`);
      }
    }
    if ((a.operation === 'Replace' || a.operation === 'Add') && !multi && a.values.filter((v) => v !== null).length > 1) {
      throw new ChangeFailure(`Single-valued attribute "${a.name}" was given ${a.values.length} values.`);
    }
  }
  const externalId = change.changeType === 'Create' ? externalIdValue(change, type) : change.externalId || null;
  if (externalId) formatValue(externalId, settings, type.externalIdAttribute);
  if (!externalId) {
    throw new ChangeFailure(change.changeType === 'Create'
      ? `The new object has no value for its external ID attribute "${type.externalIdAttribute}".`
      : `${change.changeType} needs the external ID of the object.`);
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

function isMulti(name: string, operation: string, values: readonly AttributeValue[], type: SchemaType): boolean {
  const attribute = type.attributes.find((a) => a.name.toLowerCase() === name.toLowerCase());
  if (attribute) return attribute.plurality === 'Multi';
  return operation === 'Add' || operation === 'Remove' || values.length > 1;
}

/**
 * Applies the changes for one row in order (a Create after a Delete re-creates it, and so on) and
 * records a result for each. Returns the row to write, or null when the row is gone.
 */
function applyChanges(
  start: string[] | null, changes: PreparedChange[], columns: Columns, typeColumn: number, settings: FileSettings, results: Map<string, ExportResult>,
): string[] | null {
  let row = start;
  for (const { change, type, externalId } of changes) {
    try {
      if (change.changeType === 'Delete') {
        row = null;
      } else {
        let next: string[];
        if (change.changeType === 'Create') {
          next = columns.names.map(() => '');
          if (typeColumn >= 0) next[typeColumn] = type.name;
          next[columns.of(type.externalIdAttribute!)] = externalId;
        } else {
          if (!row) throw new ChangeFailure(`No row has external ID "${externalId}".`);
          next = [...row];
        }
        for (const a of change.attributes) applyAttribute(next, columns.of(a.name), a, isMulti(a.name, a.operation, a.values, type), settings);
        row = next;
      }
      results.set(change.id, { id: change.id, success: true, confirmed: true, externalId, error: null });
    } catch (error) {
      if (!(error instanceof ChangeFailure)) throw error;
      results.set(change.id, { id: change.id, success: false, confirmed: false, externalId: change.externalId, error: error.message });
    }
  }
  return row;
}

function applyAttribute(row: string[], column: number, a: ExportChange['attributes'][number], multi: boolean, settings: FileSettings): void {
  const values = a.values.filter((v): v is Exclude<AttributeValue, null> => v !== null).map((v) => formatValue(v, settings, a.name));
  const mvd = settings.multiValueDelimiter;
  const current = row[column] ?? '';
  const currentValues = current === '' ? [] : multi && mvd ? current.split(mvd).filter((v) => v !== '') : [current];
  switch (a.operation) {
    case 'RemoveAll':
      row[column] = '';
      return;
    case 'Replace':
      row[column] = multi ? values.join(mvd) : values[0] ?? '';
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
    default:
      throw new ChangeFailure(`Unknown attribute operation "${String(a.operation)}" on "${a.name}".`);
  }
}
