import { AttributeDataType, AttributePlurality, ExecutionErrorType } from '@meridian/domain';
import { hash } from 'node:crypto';
import type { ImportedObject, ImportPage } from '@meridian/connectors';
import { ConnectorSpaceObjectInput, connectorSpaceContent } from '@meridian/persistence';
import { convertAttribute, describeRaw, StoredValue, toStoredValue } from './import-values';
import type { SchemaAttribute, SchemaObjectType, SystemSchema } from './system-schema';

/** An object of a page that passed the checks of DOMAIN.md §2.1 rule 2 (its key is unique in the page). */
export interface AcceptedObject {
  type: SchemaObjectType;
  externalId: string;
  displayName: string | null;
  source: string | null;
  change: 'Upsert' | 'Delete';
  input: ConnectorSpaceObjectInput;
  /** Value errors of the object (reported when it is kept). */
  valueErrors: ImportProblem[];
  /**
   * The hash of the connector's fingerprint under the run's schema and settings (hex), when the connector
   * gave one: equal to the stored content hash ⇒ the object is unchanged (ImportPagePreparer.complete).
   */
  fingerprint: string | null;
  /**
   * False while only the values that identify the object (external IDs, display name) are converted:
   * ImportPagePreparer.complete converts the rest once the object turns out to be new or changed.
   */
  complete: boolean;
  /** The object as the connector gave it. */
  raw: ImportedObject;
}

/** A rejected object, a value error or a connector error: one execution item with an error type. */
export interface ImportProblem {
  errorType: string;
  message: string;
  externalId: string | null;
  displayName: string | null;
  objectType: string | null;
}

export interface ImportKey {
  objectTypeId: number;
  externalId: string;
}

export interface PreparedPage {
  accepted: AcceptedObject[];
  /** Keys that occur more than once in the page: every occurrence is rejected. */
  duplicateKeys: ImportKey[];
  problems: ImportProblem[];
  /** Objects with a selected type and an external ID, duplicates included (the zero-object safety rule counts these). */
  identified: number;
}

interface TypePlan {
  type: SchemaObjectType;
  externalId: SchemaAttribute;
  secondaryExternalId: SchemaAttribute | null;
  displayName: SchemaAttribute | null;
  /** The attributes an object's identity needs before the rest: external IDs and display name. */
  identity: Set<number>;
  /** Attribute name as the connector spells it → selected attribute (null: not selected). Filled as names are met. */
  byName: Map<string, PlannedAttribute | null>;
}

interface PlannedAttribute {
  attribute: SchemaAttribute;
  /** The attribute's key in the stored document (its id as text). */
  key: string;
}

const planned = (attribute: SchemaAttribute): PlannedAttribute => ({ attribute, key: String(attribute.id) });

/** Attribute names that give a connector space object its display name, in order of preference. */
const DISPLAY_NAME_ATTRIBUTES = ['displayname', 'display name', 'cn', 'commonname', 'name', 'fullname'];

/** The key of an object within a run: object type and external ID. */
export const importKey = (objectTypeId: number, externalId: string): string => `${objectTypeId}:${externalId}`;

/**
 * Turns connector pages into connector-space writes (DOMAIN.md §2.1 rules 1-2): the object type by
 * name, the external ID, values converted to storage form keyed by attribute id, and the objects to
 * reject. Names are resolved once per run (then cached per spelling), never per value. Pure: the
 * runner persists the result.
 */
export class ImportPagePreparer {
  private readonly plans = new Map<number, TypePlan>();

  constructor(private readonly schema: SystemSchema) {
    for (const type of schema.objectTypes) {
      if (!type.externalId) continue;
      const displayName =
        DISPLAY_NAME_ATTRIBUTES.map((n) => type.byName.get(n)).find((a) => a && a.type === AttributeDataType.String) ?? null;
      this.plans.set(type.id, {
        type,
        externalId: type.externalId,
        secondaryExternalId: type.secondaryExternalId,
        displayName,
        identity: new Set([type.externalId, type.secondaryExternalId, displayName].filter((a) => a !== null).map((a) => a.id)),
        byName: new Map(type.attributes.map((a) => [a.name, planned(a)])),
      });
    }
    this.digest = fingerprintDigest(schema);
  }

  /**
   * Objects with a connector fingerprint get only their identifying values converted until the runner
   * knows whether they changed (complete). Eager (the default) converts everything while the page is
   * prepared, which overlaps with the database's write of the previous page: the runner switches to
   * lazy while most objects turn out unchanged. Either way the outcome is the same.
   */
  lazy = false;

  private readonly digest: string;

  /**
   * Converts the rest of an object prepared lazily: its values, value errors and content. Objects with
   * value errors keep the content hash of their values (not the fingerprint's), so that every import
   * converts them again and reports their errors.
   */
  complete(object: AcceptedObject): void {
    if (object.complete) return;
    const full = this.prepareObject(object.raw, [], false);
    if (!full) throw new Error(`Import: object "${object.externalId}" could not be prepared a second time.`);
    object.input = full.input;
    object.valueErrors = full.valueErrors;
    object.complete = true;
  }

  prepare(page: ImportPage): PreparedPage {
    const out: PreparedPage = { accepted: [], duplicateKeys: [], problems: [], identified: 0 };
    for (const e of page.errors) {
      out.problems.push({
        errorType: e.errorType || ExecutionErrorType.ConnectorError,
        message: e.source ? `${e.message} (${e.source})` : e.message,
        externalId: e.externalId ?? null,
        displayName: null,
        objectType: null,
      });
    }
    // Key → position in `accepted`, or -1 once the key was met twice (both are rejected, no random winner).
    const positions = new Map<string, number>();
    const rejected: Array<{ object: AcceptedObject; key: string }> = [];
    for (const raw of page.objects) {
      const object = this.prepareObject(raw, out.problems, this.lazy);
      if (!object) continue;
      out.identified++;
      const key = importKey(object.type.id, object.externalId);
      const at = positions.get(key);
      if (at === undefined) {
        positions.set(key, out.accepted.length);
        out.accepted.push(object);
      } else {
        if (at >= 0) {
          rejected.push({ object: out.accepted[at], key });
          positions.set(key, -1);
        }
        rejected.push({ object, key });
      }
    }
    if (rejected.length) {
      const repeated = new Set(rejected.map((r) => r.key));
      out.accepted = out.accepted.filter((o) => !repeated.has(importKey(o.type.id, o.externalId)));
      for (const { object } of rejected) out.problems.push(duplicateProblem(object));
      for (const key of repeated) {
        const first = rejected.find((r) => r.key === key)!.object;
        out.duplicateKeys.push({ objectTypeId: first.type.id, externalId: first.externalId });
      }
    }
    return out;
  }

  private prepareObject(raw: ImportedObject, problems: ImportProblem[], lazy: boolean): AcceptedObject | null {
    const where = raw.source ? ` (${raw.source})` : '';
    const type = typeof raw.objectType === 'string' ? this.schema.typeByName(raw.objectType) : undefined;
    const plan = type ? this.plans.get(type.id) : undefined;
    if (!type || !plan) {
      problems.push({
        errorType: ExecutionErrorType.CouldNotMatchObjectType,
        externalId: null,
        displayName: null,
        objectType: raw.objectType ?? null,
        message: type
          ? `Object type "${type.name}" has no external ID attribute selected, so its objects cannot be imported${where}.`
          : `Object type "${String(raw.objectType)}" is not among the selected object types of "${this.schema.system.name}"${where}.`,
      });
      return null;
    }
    const change = raw.change === 'Delete' ? 'Delete' : 'Upsert';
    const fingerprint =
      change === 'Upsert' && typeof raw.fingerprint === 'string' ? hash('sha256', this.digest + raw.fingerprint, 'hex') : null;
    // Lazily: only what identifies the object, the rest once it turns out new or changed (complete).
    const only = lazy && fingerprint !== null ? plan.identity : null;
    const attributes: Record<string, StoredValue[]> = {};
    const valueErrors: ImportProblem[] = [];
    const invalid: string[] = [];
    const rawAttributes = raw.attributes ?? {};
    for (const name of Object.keys(rawAttributes)) {
      const value = rawAttributes[name];
      const entry = this.attribute(plan, name);
      if (!entry) continue;
      const { attribute } = entry;
      if (only && !only.has(attribute.id)) continue;
      // The common case, one value that converts: stored without the bookkeeping of a list (same result).
      if (!Array.isArray(value)) {
        const single = toStoredValue(attribute.type, value);
        if (single !== undefined) {
          if (single !== null) attributes[entry.key] = [single];
          continue;
        }
      }
      const converted = convertAttribute(attribute.type, attribute.plurality === AttributePlurality.Multi, value);
      if (converted.values.length) attributes[entry.key] = converted.values;
      if (converted.tooMany) {
        invalid.push(attribute.name);
        valueErrors.push(
          this.valueProblem(
            type,
            `Attribute "${attribute.name}" is single-valued but ${Array.isArray(value) ? value.length : 'several'} values were given; the object is imported without it${where}.`,
          ),
        );
      } else if (converted.invalid.length) {
        invalid.push(attribute.name);
        const shown = converted.invalid.map((v) => `"${v}"`).join(', ');
        valueErrors.push(
          this.valueProblem(
            type,
            converted.invalid.length === 1
              ? `Value ${shown} of attribute "${attribute.name}" is not a valid ${attribute.type}; the object is imported without it${where}.`
              : `Values ${shown} of attribute "${attribute.name}" are not valid ${attribute.type} values; the object is imported without them${where}.`,
          ),
        );
      }
    }
    const externalIdValue = attributes[String(plan.externalId.id)]?.[0];
    const displayName = plan.displayName ? textOf(attributes[String(plan.displayName.id)]?.[0]) : null;
    if (externalIdValue === undefined || String(externalIdValue).trim() === '') {
      const why = invalid.includes(plan.externalId.name) ? 'has no valid value' : 'has no value';
      problems.push({
        errorType: ExecutionErrorType.MissingExternalIdAttributeValue,
        externalId: null,
        displayName,
        objectType: type.name,
        message: `The external ID attribute "${plan.externalId.name}" ${why}, so the object cannot be imported${where}.`,
      });
      return null;
    }
    const externalId = String(externalIdValue);
    for (const p of valueErrors) {
      p.externalId = externalId;
      p.displayName = displayName;
    }
    const input: ConnectorSpaceObjectInput = {
      connectedSystemId: this.schema.system.id,
      objectTypeId: type.id,
      externalId,
      displayName,
      secondaryExternalId: plan.secondaryExternalId ? textOf(attributes[String(plan.secondaryExternalId.id)]?.[0]) : null,
      attributes,
    };
    // Worked out once here (while the previous page is being written), used by the writer to compare and to insert.
    if (change === 'Upsert' && !only) {
      input.content = connectorSpaceContent(input);
      if (fingerprint !== null && !valueErrors.length) input.content.fingerprint = fingerprint;
    }
    return { type, externalId, displayName, source: raw.source ?? null, change, valueErrors, input, fingerprint, complete: !only, raw };
  }

  /** The selected attribute a connector's attribute name denotes (names compare case-insensitively), cached per spelling. */
  private attribute(plan: TypePlan, name: string): PlannedAttribute | null {
    let entry = plan.byName.get(name);
    if (entry === undefined) {
      const attribute = plan.type.byName.get(name.toLowerCase());
      entry = attribute ? planned(attribute) : null;
      plan.byName.set(name, entry);
    }
    return entry;
  }

  private valueProblem(type: SchemaObjectType, message: string): ImportProblem {
    return { errorType: ExecutionErrorType.ImportAttributeValueError, message, externalId: null, displayName: null, objectType: type.name };
  }
}

/** The DuplicateObject problem of one occurrence of a repeated external ID. */
export function duplicateProblem(
  object: Pick<AcceptedObject, 'externalId' | 'displayName' | 'source'> & { type: { name: string } },
): ImportProblem {
  return {
    errorType: ExecutionErrorType.DuplicateObject,
    externalId: object.externalId,
    displayName: object.displayName,
    objectType: object.type.name,
    message:
      `External ID "${describeRaw(object.externalId)}" occurs more than once in this import${object.source ? ` (this occurrence: ${object.source})` : ''}; ` +
      'every occurrence is rejected, and the connector space keeps what it held for it before this import.',
  };
}

function textOf(value: StoredValue | undefined): string | null {
  return value === undefined ? null : String(value);
}

/**
 * What a connector's fingerprint is hashed with: everything besides the source data that shapes the
 * values an import stores — the selected schema (types, attributes, their types and plurality, external
 * IDs), the connector type and the system's settings — and the version of the conversion. A change to
 * any of them changes every object's hash, so the next import converts and compares every object again.
 */
function fingerprintDigest(schema: SystemSchema): string {
  const { system } = schema;
  const shape = {
    conversion: FINGERPRINT_CONVERSION_VERSION,
    connector: system.connectorType,
    settings: system.settings,
    types: schema.objectTypes.map((t) => [
      t.id,
      t.name,
      t.externalId?.id ?? null,
      t.secondaryExternalId?.id ?? null,
      t.attributes.map((a) => [a.id, a.name, a.type, a.plurality]),
    ]),
  };
  return `${hash('sha256', JSON.stringify(shape), 'hex')}\n`;
}

/** Raise when the conversion of values to storage form changes, so that stored fingerprints no longer match. */
const FINGERPRINT_CONVERSION_VERSION = 1;
