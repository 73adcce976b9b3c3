import { DomainError } from '@meridian/domain';
import type { DiscoveredAttribute, DiscoveredObjectType, DiscoveredSchema } from '../connector.contract';
import { eventsOf, openCsv } from './csv-reader';
import type { FileSettings } from './file-settings';
import { ColumnProfile } from './value-types';

/** The header of a file, checked: names trimmed, none empty, none repeated (ignoring case). */
export interface FileHeader {
  columns: string[];
  /** Index of the object type column, or -1 when the object type is fixed. */
  typeColumn: number;
}

/** Checks a header row and finds the object type column. */
export function checkHeader(raw: readonly string[], settings: FileSettings): FileHeader {
  const columns = raw.map((c) => c.trim());
  const seen = new Map<string, number>();
  columns.forEach((name, i) => {
    if (!name) throw DomainError.validation('settings.filePath', `The header has an empty column name (column ${i + 1}).`);
    const previous = seen.get(name.toLowerCase());
    if (previous !== undefined)
      throw DomainError.validation('settings.filePath', `The header names column "${name}" twice (columns ${previous + 1} and ${i + 1}).`);
    seen.set(name.toLowerCase(), i);
  });
  let typeColumn = -1;
  if (settings.objectTypeColumn) {
    typeColumn = seen.get(settings.objectTypeColumn.trim().toLowerCase()) ?? -1;
    if (typeColumn < 0)
      throw DomainError.validation(
        'settings.objectTypeColumn',
        `The file has no column "${settings.objectTypeColumn}"; columns: ${columns.join(', ')}.`,
      );
  }
  return { columns, typeColumn };
}

/** Conventional external ID column names, best first. */
const PREFERRED_ID = /^(id|uid|guid|uuid|objectguid|employeeid|employee_id|employeenumber|personid|userid|accountid)$/i;
const ID_SUFFIX = /(id|_id|guid|uuid)$/i;

function idRank(name: string): number {
  if (PREFERRED_ID.test(name)) return 0;
  if (/Id$|ID$|_id$/.test(name) || ID_SUFFIX.test(name)) return 1;
  return 2;
}

/** Picks the suggested external ID: a column whose sampled values are all present and distinct, preferring ID-like names. */
function pickExternalId(columns: readonly string[], profiles: readonly (ColumnProfile | null)[], sampled: number): number {
  let best = -1;
  let bestRank = Infinity;
  columns.forEach((name, i) => {
    const profile = profiles[i];
    if (!profile) return;
    if (sampled > 0 && !profile.uniqueAndComplete) return;
    const rank = idRank(name);
    if (rank < bestRank) {
      best = i;
      bestRank = rank;
    }
  });
  return best;
}

interface TypeSample {
  name: string;
  rows: string[][];
}

/**
 * Discovers the schema of a CSV file: the header gives the attributes; the first `sampleRows` data
 * rows give types, plurality and the suggested external ID (see docs/connectors/file.md).
 */
export async function discoverFileSchema(filePath: string, settings: FileSettings): Promise<DiscoveredSchema> {
  const doc = await openCsv(filePath, { delimiter: settings.delimiter, quote: settings.quote, encoding: settings.nodeEncoding });
  if (!doc)
    throw DomainError.validation(
      'settings.filePath',
      `The file "${settings.filePath}" is empty: a header row naming the columns is needed.`,
    );
  const samples = new Map<string, TypeSample>();
  let header: FileHeader;
  try {
    header = checkHeader(doc.header, settings);
    const fixed: TypeSample = { name: settings.objectType, rows: [] };
    if (header.typeColumn < 0) samples.set(fixed.name, fixed);
    let read = 0;
    for await (const event of eventsOf(doc.batches)) {
      if (read >= settings.sampleRows) break;
      read++;
      if (event.kind === 'error' || event.values.length !== header.columns.length) continue;
      if (header.typeColumn < 0) {
        fixed.rows.push(event.values);
        continue;
      }
      const typeName = event.values[header.typeColumn].trim();
      if (!typeName) continue;
      let sample = samples.get(typeName);
      if (!sample) samples.set(typeName, (sample = { name: typeName, rows: [] }));
      sample.rows.push(event.values);
    }
  } finally {
    await doc.batches.return(undefined);
  }
  if (samples.size === 0) {
    throw DomainError.validation(
      'settings.objectTypeColumn',
      `No sampled row has a value in column "${settings.objectTypeColumn}", so no object type can be discovered.`,
    );
  }

  const discovered = [...samples.values()].map((sample) => profileType(sample, header, settings));
  markReferences(discovered);
  return { objectTypes: discovered.map((d) => d.objectType) };
}

interface ProfiledType {
  objectType: DiscoveredObjectType;
  rows: string[][];
  /** Column indexes of the attributes, in attribute order. */
  columnIndexes: number[];
  profiles: ColumnProfile[];
  externalId: number;
}

function profileType(sample: TypeSample, header: FileHeader, settings: FileSettings): ProfiledType {
  const profiles = header.columns.map((_, i) => (i === header.typeColumn ? null : new ColumnProfile(settings.multiValueDelimiter)));
  for (const row of sample.rows) row.forEach((value, i) => profiles[i]?.add(value));
  const externalId = pickExternalId(header.columns, profiles, sample.rows.length);
  const columnIndexes: number[] = [];
  const attributes: DiscoveredAttribute[] = [];
  header.columns.forEach((name, i) => {
    const profile = profiles[i];
    if (!profile) return;
    columnIndexes.push(i);
    attributes.push({
      name,
      type: profile.type,
      plurality: profile.plurality,
      writability: 'ReadWrite',
      description: `Column ${i + 1} of the file.`,
      className: null,
      suggestedExternalId: i === externalId,
      suggestedSecondaryExternalId: false,
    });
  });
  return {
    objectType: { name: sample.name, attributes },
    rows: sample.rows,
    columnIndexes,
    profiles: profiles.filter((p): p is ColumnProfile => p !== null),
    externalId,
  };
}

/**
 * A String column whose every sampled value is the external ID of a sampled row (of any object type),
 * and that is not just a copy of the row's own ID, is a reference (e.g. `manager` → `employeeId`).
 */
function markReferences(types: ProfiledType[]): void {
  const targets = new Set<string>();
  for (const t of types) {
    if (t.externalId < 0 || t.objectType.attributes[t.columnIndexes.indexOf(t.externalId)]?.type !== 'String') continue;
    for (const row of t.rows) targets.add(row[t.externalId]);
  }
  if (targets.size === 0) return;
  for (const t of types) {
    t.objectType.attributes.forEach((attribute, a) => {
      const column = t.columnIndexes[a];
      if (column === t.externalId || attribute.type !== 'String' || attribute.suggestedExternalId) return;
      const profile = t.profiles[a];
      if (profile.distinct.size === 0) return;
      let pointsElsewhere = false;
      for (const row of t.rows) {
        const value = row[column];
        if (value === '') continue;
        const parts = attribute.plurality === 'Multi' ? value.split(profile.multiValueDelimiter).filter((p) => p !== '') : [value];
        for (const part of parts) if (!targets.has(part)) return;
        if (t.externalId < 0 || value !== row[t.externalId]) pointsElsewhere = true;
      }
      if (pointsElsewhere) attribute.type = 'Reference';
    });
  }
}
