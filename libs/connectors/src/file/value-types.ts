import { normaliseDateTime } from '@meridian/domain';
import type { AttributeValue, ConnectorAttributeType } from '../connector.contract';

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const GUID = /^\{?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\}?$/i;
const BOOLEAN_TRUE = new Set(['true', 'yes', '1']);
const BOOLEAN_FALSE = new Set(['false', 'no', '0']);
const BOOLEAN_WORDS = new Set(['true', 'false', 'yes', 'no']);

/** Parses one raw CSV value as the given attribute type; `undefined` when it does not parse. */
export function parseValue(type: ConnectorAttributeType, raw: string): AttributeValue | undefined {
  switch (type) {
    case 'Integer': {
      const t = raw.trim();
      if (!INTEGER.test(t)) return undefined;
      const n = Number(t);
      return Number.isSafeInteger(n) ? n : undefined;
    }
    case 'Decimal': {
      const t = raw.trim();
      if (!DECIMAL.test(t)) return undefined;
      const n = Number(t);
      return Number.isFinite(n) ? n : undefined;
    }
    case 'Boolean': {
      const t = raw.trim().toLowerCase();
      if (BOOLEAN_TRUE.has(t)) return true;
      if (BOOLEAN_FALSE.has(t)) return false;
      return undefined;
    }
    case 'DateTime':
      return normaliseDateTime(raw) ?? undefined;
    case 'Guid': {
      const m = GUID.exec(raw.trim());
      return m ? m[1].toLowerCase() : undefined;
    }
    default:
      // String, Reference (stored raw and resolved after the import) and Binary (as written, e.g. base64).
      return raw;
  }
}

/** Running type inference for one column over sample values. */
export class ColumnProfile {
  private integer = true;
  private boolean = true;
  private dateTime = true;
  private guid = true;
  private nonEmpty = 0;
  private multi = false;
  private unique = true;
  private empties = 0;
  /** The distinct non-empty raw values of the sample. */
  readonly distinct = new Set<string>();

  constructor(readonly multiValueDelimiter: string) {}

  add(raw: string | undefined): void {
    const value = raw ?? '';
    if (value === '') {
      this.empties++;
      return;
    }
    if (this.distinct.has(value)) this.unique = false;
    else this.distinct.add(value);
    const parts = this.multiValueDelimiter && value.includes(this.multiValueDelimiter) ? value.split(this.multiValueDelimiter) : [value];
    if (parts.length > 1) this.multi = true;
    for (const part of parts) {
      if (part === '') continue;
      this.nonEmpty++;
      if (this.integer) this.integer = INTEGER.test(part) && Number.isSafeInteger(Number(part)) && !/^[+-]?0\d/.test(part);
      if (this.boolean) this.boolean = BOOLEAN_WORDS.has(part.trim().toLowerCase());
      if (this.dateTime) this.dateTime = normaliseDateTime(part) !== null;
      if (this.guid) this.guid = GUID.test(part.trim());
    }
  }

  get type(): ConnectorAttributeType {
    if (this.nonEmpty === 0) return 'String';
    if (this.integer) return 'Integer';
    if (this.boolean) return 'Boolean';
    if (this.dateTime) return 'DateTime';
    if (this.guid) return 'Guid';
    return 'String';
  }

  get plurality(): 'Single' | 'Multi' {
    return this.multi ? 'Multi' : 'Single';
  }

  /** Every sampled value present and distinct (an external ID candidate). */
  get uniqueAndComplete(): boolean {
    return this.empties === 0 && this.distinct.size > 0 && this.unique && !this.multi;
  }
}
