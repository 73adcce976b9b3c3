import { formatDate, fromFileTime, parseDateFormat, startOfUtcDay, toFileTime } from './expression-dates';
import { ExpressionErrorCode } from './expression-error';
import { EXPRESSION_LIMITS } from './expression-limits';
import {
  CallSite,
  conditionValue,
  dateArg,
  EvalState,
  Evaluator,
  integerArg,
  listArg,
  listTooLong,
  stringTooLong,
  textArg,
} from './expression-runtime';
import { ExpressionValue, isList, itemToText, valuesEqual } from './expression-value';

export type ExpressionFunctionCategory = 'Text' | 'Collections' | 'Logic' | 'Dates' | 'Conversion' | 'Directory' | 'Bits';

export interface ExpressionFunctionParameter {
  readonly name: string;
  /** The accepted type as shown in the reference, e.g. `text`, `whole number`, `any`. */
  readonly type: string;
  readonly optional?: boolean;
  /** The last parameter may repeat (Coalesce). */
  readonly variadic?: boolean;
}

/** A documented example; unless `deterministic` is false, a test evaluates it against EXAMPLE_CONTEXT and EXAMPLE_NOW. */
export interface ExpressionFunctionExample {
  readonly expression: string;
  /** The result as formatExpressionValue renders it. */
  readonly result: string;
  readonly deterministic?: false;
}

/** Rejects constant arguments at compile time; `constants[i]` is the literal value of argument i, or undefined. */
export type ConstantCheck = (constants: readonly (ExpressionValue | undefined)[], fail: (arg: number, message: string) => never) => void;

/** One function of the language: what the evaluator registers and what docs/expressions.md is generated from. */
export interface ExpressionFunctionDefinition {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly category: ExpressionFunctionCategory;
  readonly parameters: readonly ExpressionFunctionParameter[];
  readonly returns: string;
  readonly summary: string;
  /** What the function does with null arguments. */
  readonly nulls: string;
  readonly examples: readonly ExpressionFunctionExample[];
  /** False for functions whose result depends on the clock or randomness. */
  readonly deterministic?: false;
  /** Eager implementation: receives the evaluated arguments. */
  readonly evaluate?: (args: readonly ExpressionValue[], site: CallSite, state: EvalState) => ExpressionValue;
  /** Lazy implementation: receives the argument evaluators (IIF, Coalesce evaluate only what they need). */
  readonly special?: (args: readonly Evaluator[], site: CallSite) => Evaluator;
  readonly check?: ConstantCheck;
}

/** The instant the documented examples are evaluated at. */
export const EXAMPLE_NOW = '2025-01-15T10:30:00.000Z';

/** The object the documented examples read with mv[…] and cs[…]. */
export const EXAMPLE_CONTEXT = {
  mv: {
    'Display Name': 'Ada Lovelace',
    Status: 'Archived',
    'Employee End Date': new Date('2025-03-31T00:00:00.000Z'),
    'Proxy Addresses': ['SMTP:ada@example.org', 'smtp:a.lovelace@example.org'],
  },
  cs: {
    givenName: 'Ada',
    sn: 'Lovelace',
    cn: 'Lovelace, Ada',
    userAccountControl: 512,
    accountExpires: '133801632000000000',
  },
} as const;

const SURROGATE = /[\uD800-\uDFFF]/;
/** Characters as code points, so Left/Right/Substring/Length never split a surrogate pair. */
const codePoints = (s: string): string[] | null => (SURROGATE.test(s) ? Array.from(s) : null);

function slice(s: string, start: number, end?: number): string {
  const cps = codePoints(s);
  return cps ? cps.slice(start, end).join('') : s.slice(start, end);
}

function length(s: string): number {
  const cps = codePoints(s);
  return cps ? cps.length : s.length;
}

function nonNegative(value: number | null, site: CallSite, arg: number): number | null {
  if (value !== null && value < 0) site.invalid(arg, `must be 0 or more, got ${value}`);
  return value;
}

const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function toNumber(value: ExpressionValue, site: CallSite, truncate: boolean): number | null {
  if (value === null) return null;
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'boolean') n = value ? 1 : 0;
  else if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return null;
    if (!DECIMAL_TEXT.test(text))
      return site.invalid(0, `is not a number: ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`);
    n = Number(text);
  } else return site.typeError(0, 'a number or numeric text', value);
  if (!Number.isFinite(n)) return site.fail(ExpressionErrorCode.Overflow, 'the number is out of range', 0);
  if (!truncate) return n;
  const whole = Math.trunc(n) + 0; // + 0 turns -0 into 0
  if (!Number.isSafeInteger(whole))
    return site.fail(ExpressionErrorCode.Overflow, `${whole} is outside the exact whole-number range (±2^53)`, 0);
  return whole;
}

function capitalise(s: string): string {
  return s.toLowerCase().replace(/(?<=^|[\s-])./gu, (first) => first.toUpperCase());
}

function replaceAll(s: string, search: string, replacement: string, site: CallSite): string {
  const pieces = s.split(search);
  const resultLength = s.length + (pieces.length - 1) * (replacement.length - search.length);
  if (resultLength > EXPRESSION_LIMITS.maxStringLength) throw stringTooLong(site.at, resultLength);
  return pieces.join(replacement);
}

/** RFC 4514 §2.4: escape `"+,;<>\`, a leading space or `#`, a trailing space, and NUL as \00. */
function escapeDn(s: string): string {
  let out = '';
  const last = s.length - 1;
  for (let i = 0; i <= last; i++) {
    const ch = s[i];
    if (ch === '\0') out += '\\00';
    else if (ch === '"' || ch === '+' || ch === ',' || ch === ';' || ch === '<' || ch === '>' || ch === '\\') out += `\\${ch}`;
    else if ((i === 0 && (ch === ' ' || ch === '#')) || (i === last && ch === ' ')) out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

const PASSWORD_CLASSES = ['ABCDEFGHJKLMNPQRSTUVWXYZ', 'abcdefghijkmnopqrstuvwxyz', '23456789', '!#$%&*+-=?@^_'] as const;
const PASSWORD_ALPHABET = PASSWORD_CLASSES.join('');
export const RANDOM_PASSWORD_MIN = 8;
export const RANDOM_PASSWORD_MAX = 256;

type RandomSource = { getRandomValues<T extends ArrayBufferView>(array: T): T };
let randomSource: RandomSource | undefined;

/** A uniform integer in [0, bound) from the platform CSPRNG (Web Crypto), by rejection sampling. */
function randomBelow(bound: number, site: CallSite): number {
  randomSource ??= (globalThis as { crypto?: RandomSource }).crypto;
  if (!randomSource || typeof randomSource.getRandomValues !== 'function') {
    return site.fail(ExpressionErrorCode.Unavailable, 'no cryptographically secure random source (Web Crypto) is available');
  }
  const limit = Math.floor(0x1_0000_0000 / bound) * bound;
  const buffer = new Uint32Array(1);
  for (;;) {
    randomSource.getRandomValues(buffer);
    if (buffer[0] < limit) return buffer[0] % bound;
  }
}

function randomPassword(size: number, site: CallSite): string {
  // One character of each class guarantees complexity rules (AD requires three of four); the rest
  // come from the whole alphabet, then a Fisher–Yates shuffle hides where the guaranteed ones are.
  const chars = PASSWORD_CLASSES.map((cls) => cls[randomBelow(cls.length, site)]);
  while (chars.length < size) chars.push(PASSWORD_ALPHABET[randomBelow(PASSWORD_ALPHABET.length, site)]);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomBelow(i + 1, site);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}

const ACCOUNTDISABLE = 0x2;

/** Bitwise set/clear/test on whole numbers; 31-bit values take the fast path, others use BigInt two's complement. */
function bits(value: number, mask: number, op: 'set' | 'clear' | 'has', site: CallSite): number | boolean {
  if (value >= 0 && value <= 0x7fff_ffff && mask <= 0x7fff_ffff) {
    if (op === 'set') return value | mask;
    if (op === 'clear') return value & ~mask;
    return (value & mask) === mask;
  }
  const v = BigInt(value),
    m = BigInt(mask);
  if (op === 'has') return (v & m) === m;
  const result = Number(op === 'set' ? v | m : v & ~m);
  if (!Number.isSafeInteger(result))
    return site.fail(ExpressionErrorCode.Overflow, 'the result is outside the exact whole-number range (±2^53)');
  return result;
}

function maskArg(value: ExpressionValue, site: CallSite): number | null {
  const mask = integerArg(value, site, 1);
  if (mask !== null && mask <= 0) site.invalid(1, `must be a positive bit mask such as 2 or 0x10000, got ${mask}`);
  return mask;
}

function bitFunction(op: 'set' | 'clear' | 'has') {
  return (args: readonly ExpressionValue[], site: CallSite): ExpressionValue => {
    const value = integerArg(args[0], site, 0);
    const mask = maskArg(args[1], site);
    return value === null || mask === null ? null : bits(value, mask, op, site);
  };
}

function uacFunction(op: 'set' | 'clear') {
  return (args: readonly ExpressionValue[], site: CallSite): ExpressionValue => {
    const uac = integerArg(args[0], site, 0);
    return uac === null ? null : bits(uac, ACCOUNTDISABLE, op, site);
  };
}

/** Wraps a text → value function with the usual rule: null (or any null argument) gives null. */
function onText(fn: (texts: string[], site: CallSite) => ExpressionValue) {
  return (args: readonly ExpressionValue[], site: CallSite): ExpressionValue => {
    const texts: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const t = textArg(args[i], site, i);
      if (t === null) return null;
      texts.push(t);
    }
    return fn(texts, site);
  };
}

const constantInteger = (value: ExpressionValue | undefined) => (typeof value === 'number' ? value : undefined);

const TEXT = 'text';
const ANY = 'any';
const WHOLE = 'whole number';

/** The function table: registered by the compiler, listed by listExpressionFunctions, rendered into docs. */
export const EXPRESSION_FUNCTIONS: readonly ExpressionFunctionDefinition[] = [
  // ── Text ────────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Trim',
    category: 'Text',
    parameters: [{ name: 'value', type: TEXT }],
    returns: TEXT,
    summary: 'Removes leading and trailing whitespace (spaces, tabs, line breaks, Unicode spaces).',
    nulls: 'null → null',
    examples: [{ expression: 'Trim("  Ada  ")', result: '"Ada"' }],
    evaluate: onText(([s]) => s.trim()),
  },
  {
    name: 'Upper',
    category: 'Text',
    parameters: [{ name: 'value', type: TEXT }],
    returns: TEXT,
    summary: 'Converts to upper case (culture-invariant Unicode rules).',
    nulls: 'null → null',
    examples: [{ expression: 'Upper(cs["sn"])', result: '"LOVELACE"' }],
    evaluate: onText(([s]) => s.toUpperCase()),
  },
  {
    name: 'Lower',
    category: 'Text',
    parameters: [{ name: 'value', type: TEXT }],
    returns: TEXT,
    summary: 'Converts to lower case (culture-invariant Unicode rules).',
    nulls: 'null → null',
    examples: [{ expression: 'Lower("Ada.Lovelace")', result: '"ada.lovelace"' }],
    evaluate: onText(([s]) => s.toLowerCase()),
  },
  {
    name: 'Capitalise',
    aliases: ['Capitalize'],
    category: 'Text',
    parameters: [{ name: 'value', type: TEXT }],
    returns: TEXT,
    summary: 'Title case: the first letter of every word upper case, the rest lower case. Words are separated by whitespace or hyphens.',
    nulls: 'null → null',
    examples: [
      { expression: 'Capitalise("ada LOVELACE")', result: '"Ada Lovelace"' },
      { expression: 'Capitalise("jean-luc")', result: '"Jean-Luc"' },
    ],
    evaluate: onText(([s]) => capitalise(s)),
  },
  {
    name: 'Left',
    category: 'Text',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'count', type: WHOLE },
    ],
    returns: TEXT,
    summary: 'The first `count` characters (all of them when the text is shorter). `count` must be 0 or more.',
    nulls: 'null value or count → null',
    examples: [
      { expression: 'Left(cs["givenName"], 1)', result: '"A"' },
      { expression: 'Left("Ada", 10)', result: '"Ada"' },
    ],
    evaluate: (args, site) => {
      const s = textArg(args[0], site, 0);
      const n = nonNegative(integerArg(args[1], site, 1), site, 1);
      return s === null || n === null ? null : slice(s, 0, n);
    },
  },
  {
    name: 'Right',
    category: 'Text',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'count', type: WHOLE },
    ],
    returns: TEXT,
    summary: 'The last `count` characters (all of them when the text is shorter). `count` must be 0 or more.',
    nulls: 'null value or count → null',
    examples: [{ expression: 'Right("EMP000123", 3)', result: '"123"' }],
    evaluate: (args, site) => {
      const s = textArg(args[0], site, 0);
      const n = nonNegative(integerArg(args[1], site, 1), site, 1);
      if (s === null || n === null) return null;
      return slice(s, Math.max(0, length(s) - n));
    },
  },
  {
    name: 'Substring',
    category: 'Text',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'start', type: WHOLE },
      { name: 'length', type: WHOLE, optional: true },
    ],
    returns: TEXT,
    summary:
      'Up to `length` characters starting at the 0-based `start` (to the end when `length` is left out); empty when `start` is past the end.',
    nulls: 'null value, start or length → null',
    examples: [
      { expression: 'Substring("Lovelace", 4, 4)', result: '"lace"' },
      { expression: 'Substring("Lovelace", 4)', result: '"lace"' },
      { expression: 'Substring("Ada", 5, 2)', result: '""' },
    ],
    evaluate: (args, site) => {
      const s = textArg(args[0], site, 0);
      const start = nonNegative(integerArg(args[1], site, 1), site, 1);
      const count = args.length > 2 ? nonNegative(integerArg(args[2], site, 2), site, 2) : undefined;
      if (s === null || start === null || count === null) return null;
      return slice(s, start, count === undefined ? undefined : start + count);
    },
  },
  {
    name: 'Replace',
    category: 'Text',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'search', type: TEXT },
      { name: 'replacement', type: TEXT },
    ],
    returns: TEXT,
    summary: 'Replaces every occurrence of `search` (case-sensitive, literal text, no patterns).',
    nulls: 'null value → null; null or empty search → value unchanged; null replacement → removes the occurrences',
    examples: [
      { expression: 'Replace("Ada Lovelace", " ", ".")', result: '"Ada.Lovelace"' },
      { expression: 'Replace("a-b-c", "-", null)', result: '"abc"' },
    ],
    evaluate: (args, site) => {
      const s = textArg(args[0], site, 0);
      const search = textArg(args[1], site, 1);
      const replacement = textArg(args[2], site, 2) ?? '';
      if (s === null) return null;
      if (search === null || search === '') return s;
      return replaceAll(s, search, replacement, site);
    },
  },
  {
    name: 'StartsWith',
    category: 'Text',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'prefix', type: TEXT },
    ],
    returns: 'boolean',
    summary: 'Whether the text starts with `prefix` (case-sensitive; wrap both in Lower for a case-insensitive test).',
    nulls: 'null value or prefix → null (a condition treats null as false)',
    examples: [{ expression: 'StartsWith(cs["cn"], "Love")', result: 'true' }],
    evaluate: onText(([s, prefix]) => s.startsWith(prefix)),
  },
  {
    name: 'EndsWith',
    category: 'Text',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'suffix', type: TEXT },
    ],
    returns: 'boolean',
    summary: 'Whether the text ends with `suffix` (case-sensitive).',
    nulls: 'null value or suffix → null',
    examples: [{ expression: 'EndsWith("ada@example.org", "@example.org")', result: 'true' }],
    evaluate: onText(([s, suffix]) => s.endsWith(suffix)),
  },
  {
    name: 'Contains',
    category: 'Text',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'part', type: TEXT },
    ],
    returns: 'boolean',
    summary: 'Whether the text contains `part` (case-sensitive). For multi-valued attributes use CollectionContains.',
    nulls: 'null value or part → null',
    examples: [{ expression: 'Contains("Lovelace, Ada", ",")', result: 'true' }],
    evaluate: onText(([s, part]) => s.includes(part)),
  },
  {
    name: 'Length',
    category: 'Text',
    parameters: [{ name: 'value', type: 'text or list' }],
    returns: WHOLE,
    summary: 'The number of characters (Unicode code points) of a text, or the number of values of a list.',
    nulls: 'null → null',
    examples: [
      { expression: 'Length("Ada")', result: '3' },
      { expression: 'Length(mv["Proxy Addresses"])', result: '2' },
    ],
    evaluate: (args) => {
      const v = args[0];
      if (v === null) return null;
      if (isList(v)) return v.length;
      return length(itemToText(v));
    },
  },
  {
    name: 'IsNullOrEmpty',
    category: 'Text',
    parameters: [{ name: 'value', type: ANY }],
    returns: 'boolean',
    summary: 'True for null, empty text and an empty list.',
    nulls: 'null → true',
    examples: [
      { expression: 'IsNullOrEmpty(cs["missing"])', result: 'true' },
      { expression: 'IsNullOrEmpty(" ")', result: 'false' },
    ],
    evaluate: ([v]) => v === null || v === '' || (isList(v) && v.length === 0),
  },
  {
    name: 'IsNullOrWhitespace',
    category: 'Text',
    parameters: [{ name: 'value', type: ANY }],
    returns: 'boolean',
    summary: 'True for null, an empty list, and text that is empty or only whitespace.',
    nulls: 'null → true',
    examples: [
      { expression: 'IsNullOrWhitespace(" ")', result: 'true' },
      { expression: 'IsNullOrWhitespace("Ada")', result: 'false' },
    ],
    evaluate: ([v]) => v === null || (typeof v === 'string' && v.trim() === '') || (isList(v) && v.length === 0),
  },

  // ── Collections ─────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Split',
    category: 'Collections',
    parameters: [
      { name: 'value', type: TEXT },
      { name: 'delimiter', type: TEXT },
    ],
    returns: 'list of text',
    summary:
      'Splits text at every occurrence of a non-empty `delimiter`; each piece is trimmed and empty pieces are dropped (the list feeds multi-valued attributes), so empty text gives an empty list.',
    nulls: 'null value or delimiter → null',
    examples: [
      { expression: 'Split("a;b;;c", ";")', result: '["a", "b", "c"]' },
      { expression: 'Split(" sales ; ; legal ", ";")', result: '["sales", "legal"]' },
      { expression: 'Split("", ";")', result: '[]' },
    ],
    evaluate: (args, site) => {
      const s = textArg(args[0], site, 0);
      const delimiter = textArg(args[1], site, 1);
      if (s === null || delimiter === null) return null;
      if (delimiter === '') return site.invalid(1, 'must not be empty');
      if (s === '') return [];
      const parts: string[] = [];
      for (const piece of s.split(delimiter)) {
        const trimmed = piece.trim();
        if (trimmed === '') continue;
        if (parts.length === EXPRESSION_LIMITS.maxListLength)
          throw listTooLong(site.at, s.split(delimiter).filter((p) => p.trim() !== '').length);
        parts.push(trimmed);
      }
      return parts;
    },
    check: ([, delimiter], fail) => {
      if (delimiter === '') fail(1, 'Split: delimiter must not be empty');
    },
  },
  {
    name: 'Join',
    category: 'Collections',
    parameters: [
      { name: 'values', type: 'list' },
      { name: 'delimiter', type: TEXT },
    ],
    returns: TEXT,
    summary:
      'Joins the values of a list (a single value counts as a one-value list) with `delimiter`; numbers, booleans and dates are converted as by ToString.',
    nulls: 'null values → null; null delimiter → joined without one',
    examples: [
      { expression: 'Join(mv["Proxy Addresses"], "; ")', result: '"SMTP:ada@example.org; smtp:a.lovelace@example.org"' },
      { expression: 'Join(Split("a,b", ","), "|")', result: '"a|b"' },
    ],
    evaluate: (args, site) => {
      const values = listArg(args[0]);
      const delimiter = textArg(args[1], site, 1) ?? '';
      if (values === null) return null;
      const texts = values.map((v) => itemToText(v));
      let total = delimiter.length * Math.max(0, texts.length - 1);
      for (const t of texts) total += t.length;
      if (total > EXPRESSION_LIMITS.maxStringLength) throw stringTooLong(site.at, total);
      return texts.join(delimiter);
    },
  },
  {
    name: 'CollectionContains',
    category: 'Collections',
    parameters: [
      { name: 'values', type: 'list' },
      { name: 'value', type: ANY },
    ],
    returns: 'boolean',
    summary:
      'Whether the list holds a value equal to `value` (as Eq compares: same type, case-sensitive text). A single value counts as a one-value list.',
    nulls: 'null values or null value → false',
    examples: [
      { expression: 'CollectionContains(mv["Proxy Addresses"], "SMTP:ada@example.org")', result: 'true' },
      { expression: 'CollectionContains(Split("1,2", ","), 2)', result: 'false' },
    ],
    evaluate: (args, site) => {
      const values = listArg(args[0]);
      const value = args[1];
      if (isList(value)) return site.typeError(1, 'a single value', value);
      if (values === null || value === null) return false;
      for (const item of values) if (valuesEqual(item, value)) return true;
      return false;
    },
  },

  // ── Logic ───────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Coalesce',
    category: 'Logic',
    parameters: [{ name: 'value', type: ANY, variadic: true }],
    returns: ANY,
    summary: 'The first argument that is not null, not empty text and not an empty list; the rest are not evaluated.',
    nulls: 'all null or empty → null',
    examples: [
      { expression: 'Coalesce(cs["missing"], "", cs["givenName"])', result: '"Ada"' },
      { expression: 'Coalesce(cs["userAccountControl"], 512)', result: '512' },
    ],
    special: (args) => (state) => {
      for (let i = 0; i < args.length; i++) {
        const v = args[i](state);
        if (v !== null && v !== '' && !(isList(v) && v.length === 0)) return v;
      }
      return null;
    },
  },
  {
    name: 'IIF',
    category: 'Logic',
    parameters: [
      { name: 'condition', type: 'boolean' },
      { name: 'whenTrue', type: ANY },
      { name: 'whenFalse', type: ANY },
    ],
    returns: ANY,
    summary:
      '`whenTrue` if the condition is true, otherwise `whenFalse`; only the chosen branch is evaluated. The condition must be a boolean or null.',
    nulls: 'null condition → whenFalse',
    examples: [
      { expression: 'IIF(Eq(mv["Status"], "Archived"), "disabled", "enabled")', result: '"disabled"' },
      { expression: 'IIF(cs["missing"] > 3, "big", "small")', result: '"small"' },
    ],
    special: ([condition, whenTrue, whenFalse], site) => {
      const at = site.argAt[0];
      return (state) => (conditionValue(condition(state), 'IIF: condition', at) ? whenTrue(state) : whenFalse(state));
    },
  },
  {
    name: 'Eq',
    category: 'Logic',
    parameters: [
      { name: 'a', type: ANY },
      { name: 'b', type: ANY },
    ],
    returns: 'boolean',
    summary:
      'Null-aware equality, the same as `==`: equal type and value, text compared case-sensitively, dates by instant, lists value by value in order. No conversion: Eq(1, "1") is false.',
    nulls: 'Eq(null, null) → true; Eq(null, x) → false',
    examples: [
      { expression: 'Eq(mv["Status"], "Archived")', result: 'true' },
      { expression: 'Eq(cs["missing"], null)', result: 'true' },
      { expression: 'Eq(1, "1")', result: 'false' },
    ],
    evaluate: ([a, b]) => valuesEqual(a, b),
  },

  // ── Dates ───────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'Now',
    category: 'Dates',
    parameters: [],
    returns: 'date',
    summary: 'The current instant (UTC). Every call within one evaluation returns the same instant.',
    nulls: '—',
    deterministic: false,
    examples: [{ expression: 'Now()', result: `date ${EXAMPLE_NOW}` }],
    evaluate: (_args, site, state) => new Date(now(state, site).getTime()),
  },
  {
    name: 'Today',
    category: 'Dates',
    parameters: [],
    returns: 'date',
    summary: 'Midnight UTC of the current day.',
    nulls: '—',
    deterministic: false,
    examples: [{ expression: 'Today()', result: 'date 2025-01-15T00:00:00.000Z' }],
    evaluate: (_args, site, state) => startOfUtcDay(now(state, site)),
  },
  {
    name: 'FormatDate',
    category: 'Dates',
    parameters: [
      { name: 'date', type: 'date or ISO 8601 text' },
      { name: 'format', type: TEXT },
    ],
    returns: TEXT,
    summary:
      'Formats a date in UTC with the tokens listed under *Date format tokens*; other characters are copied, text in single quotes is copied literally.',
    nulls: 'null date or format → null',
    examples: [
      { expression: 'FormatDate(mv["Employee End Date"], "yyyy-MM-dd")', result: '"2025-03-31"' },
      { expression: 'FormatDate("2025-01-15T10:30:05Z", "yyyyMMddHHmmss.0Z")', result: '"20250115103005.0Z"' },
      { expression: `FormatDate(Now(), "dd/MM/yyyy 'at' HH:mm")`, result: '"15/01/2025 at 10:30"' },
    ],
    evaluate: (args, site) => {
      const date = dateArg(args[0], site, 0);
      const format = textArg(args[1], site, 1);
      if (date === null || format === null) return null;
      return formatDate(date, format, (message) => site.invalid(1, message));
    },
    check: ([, format], fail) => {
      if (typeof format !== 'string') return;
      const parsed = parseDateFormat(format);
      if (typeof parsed === 'string') fail(1, `FormatDate: invalid date format: ${parsed}`);
    },
  },
  {
    name: 'ToFileTime',
    category: 'Dates',
    parameters: [{ name: 'date', type: 'date or ISO 8601 text' }],
    returns: 'text (decimal)',
    summary:
      'The Windows FILETIME of a date: 100-nanosecond intervals since 1601-01-01 UTC, as decimal text because the value exceeds the exact range of numbers (2^53); LDAP sends such Integer8 values (e.g. accountExpires) as decimal text too.',
    nulls: 'null → null',
    examples: [
      { expression: 'ToFileTime("2025-01-15T00:00:00Z")', result: '"133813728000000000"' },
      { expression: 'ToFileTime("1970-01-01")', result: '"116444736000000000"' },
    ],
    evaluate: (args, site) => {
      const date = dateArg(args[0], site, 0);
      return date === null ? null : toFileTime(date, (message) => site.invalid(0, message));
    },
  },
  {
    name: 'FromFileTime',
    category: 'Dates',
    parameters: [{ name: 'fileTime', type: 'whole number or decimal text' }],
    returns: 'date',
    summary:
      'The date of a Windows FILETIME. 0 and 0x7FFFFFFFFFFFFFFF (9223372036854775807) mean "never" in Active Directory and give null.',
    nulls: 'null → null',
    examples: [
      { expression: 'FromFileTime(cs["accountExpires"])', result: 'date 2025-01-01T00:00:00.000Z' },
      { expression: 'FromFileTime("9223372036854775807")', result: 'null' },
      { expression: 'FromFileTime(0)', result: 'null' },
    ],
    evaluate: (args, site) => {
      const v = args[0];
      if (v === null) return null;
      if (typeof v !== 'number' && typeof v !== 'string') return site.typeError(0, 'a whole number or decimal text', v);
      return fromFileTime(v, (message) => site.invalid(0, message.replace(/^a FILETIME must be/, 'must be')));
    },
  },

  // ── Conversion ──────────────────────────────────────────────────────────────────────────────────
  {
    name: 'ToString',
    category: 'Conversion',
    parameters: [{ name: 'value', type: ANY }],
    returns: TEXT,
    summary:
      'Text of a single value: numbers in plain decimal (exponent for very large or small ones), booleans as true/false, dates as ISO 8601 UTC. A list is an error (use Join).',
    nulls: 'null → null',
    examples: [
      { expression: 'ToString(cs["userAccountControl"])', result: '"512"' },
      { expression: 'ToString(mv["Employee End Date"])', result: '"2025-03-31T00:00:00.000Z"' },
    ],
    evaluate: (args, site) => textArg(args[0], site, 0),
  },
  {
    name: 'ToInt',
    category: 'Conversion',
    parameters: [{ name: 'value', type: 'number, text or boolean' }],
    returns: WHOLE,
    summary:
      'A whole number, truncating any fraction towards zero. Text must be a decimal number (surrounding spaces allowed); true/false give 1/0.',
    nulls: 'null or empty text → null',
    examples: [
      { expression: 'ToInt(" 42 ")', result: '42' },
      { expression: 'ToInt("-7.9")', result: '-7' },
      { expression: 'ToInt("")', result: 'null' },
    ],
    evaluate: (args, site) => toNumber(args[0], site, true),
  },
  {
    name: 'ToDecimal',
    category: 'Conversion',
    parameters: [{ name: 'value', type: 'number, text or boolean' }],
    returns: 'number',
    summary: 'A number (IEEE-754 double precision). Text must be a decimal number, optionally with an exponent.',
    nulls: 'null or empty text → null',
    examples: [
      { expression: 'ToDecimal("12.50")', result: '12.5' },
      { expression: 'ToDecimal("1e3")', result: '1000' },
    ],
    evaluate: (args, site) => toNumber(args[0], site, false),
  },

  // ── Directory ───────────────────────────────────────────────────────────────────────────────────
  {
    name: 'EscapeDN',
    category: 'Directory',
    parameters: [{ name: 'value', type: TEXT }],
    returns: TEXT,
    summary:
      'Escapes an attribute value for use in a distinguished name (RFC 4514 §2.4): `" + , ; < > \\` get a backslash, as do a leading space or `#` and a trailing space; NUL becomes `\\00`.',
    nulls: 'null → null',
    examples: [
      {
        expression: '"cn=" + EscapeDN(cs["cn"]) + ",ou=people,dc=example,dc=org"',
        result: '"cn=Lovelace\\\\, Ada,ou=people,dc=example,dc=org"',
      },
      { expression: 'EscapeDN("#1 ")', result: '"\\\\#1\\\\ "' },
    ],
    evaluate: onText(([s]) => escapeDn(s)),
  },
  {
    name: 'RandomPassword',
    category: 'Directory',
    parameters: [{ name: 'length', type: WHOLE }],
    returns: TEXT,
    summary: `A random password of ${RANDOM_PASSWORD_MIN}–${RANDOM_PASSWORD_MAX} characters from a cryptographically secure generator (Web Crypto), with at least one upper-case letter, lower-case letter, digit and symbol (${PASSWORD_CLASSES[3]}); look-alike characters (I, O, l, 0, 1) are left out.`,
    nulls: 'null → null',
    deterministic: false,
    examples: [{ expression: 'RandomPassword(16)', result: '"q7K#xv2@Lm9_Tn4e" (different every time)', deterministic: false }],
    evaluate: (args, site) => {
      const size = integerArg(args[0], site, 0);
      if (size === null) return null;
      if (size < RANDOM_PASSWORD_MIN || size > RANDOM_PASSWORD_MAX)
        site.invalid(0, `must be between ${RANDOM_PASSWORD_MIN} and ${RANDOM_PASSWORD_MAX}, got ${size}`);
      return randomPassword(size, site);
    },
    check: ([size], fail) => {
      const n = constantInteger(size);
      if (n !== undefined && (n < RANDOM_PASSWORD_MIN || n > RANDOM_PASSWORD_MAX || !Number.isInteger(n))) {
        fail(0, `RandomPassword: length must be a whole number between ${RANDOM_PASSWORD_MIN} and ${RANDOM_PASSWORD_MAX}, got ${n}`);
      }
    },
  },
  {
    name: 'EnableUser',
    category: 'Directory',
    parameters: [{ name: 'userAccountControl', type: WHOLE }],
    returns: WHOLE,
    summary: 'Clears the ACCOUNTDISABLE bit (0x2) of an Active Directory userAccountControl value.',
    nulls: 'null → null',
    examples: [{ expression: 'EnableUser(514)', result: '512' }],
    evaluate: uacFunction('clear'),
  },
  {
    name: 'DisableUser',
    category: 'Directory',
    parameters: [{ name: 'userAccountControl', type: WHOLE }],
    returns: WHOLE,
    summary: 'Sets the ACCOUNTDISABLE bit (0x2) of an Active Directory userAccountControl value.',
    nulls: 'null → null',
    examples: [
      { expression: 'DisableUser(Coalesce(cs["userAccountControl"], 512))', result: '514' },
      { expression: 'DisableUser("66048")', result: '66050' },
    ],
    evaluate: uacFunction('set'),
  },

  // ── Bits ────────────────────────────────────────────────────────────────────────────────────────
  {
    name: 'SetBit',
    category: 'Bits',
    parameters: [
      { name: 'value', type: WHOLE },
      { name: 'mask', type: 'positive whole number' },
    ],
    returns: WHOLE,
    summary:
      "Sets the bits of `mask` (a mask, not a bit index: 0x2 is ACCOUNTDISABLE, 0x10000 DONT_EXPIRE_PASSWORD). Negative values (e.g. AD groupType) are handled as two's complement.",
    nulls: 'null value or mask → null',
    examples: [
      { expression: 'SetBit(512, 0x10000)', result: '66048' },
      { expression: 'SetBit(514, 2)', result: '514' },
    ],
    evaluate: bitFunction('set'),
  },
  {
    name: 'ClearBit',
    category: 'Bits',
    parameters: [
      { name: 'value', type: WHOLE },
      { name: 'mask', type: 'positive whole number' },
    ],
    returns: WHOLE,
    summary: 'Clears the bits of `mask`.',
    nulls: 'null value or mask → null',
    examples: [{ expression: 'ClearBit(66050, 0x10002)', result: '512' }],
    evaluate: bitFunction('clear'),
  },
  {
    name: 'HasBit',
    category: 'Bits',
    parameters: [
      { name: 'value', type: WHOLE },
      { name: 'mask', type: 'positive whole number' },
    ],
    returns: 'boolean',
    summary: 'Whether all the bits of `mask` are set.',
    nulls: 'null value or mask → null',
    examples: [
      { expression: 'HasBit(514, 2)', result: 'true' },
      { expression: 'HasBit(-2147483646, 0x80000000)', result: 'true' },
    ],
    evaluate: bitFunction('has'),
  },
];

function now(state: EvalState, site: CallSite): Date {
  if (state.now) return state.now;
  const value = state.clock ? state.clock() : new Date();
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    return site.fail(ExpressionErrorCode.InvalidContext, 'the clock passed in the evaluation options did not return a valid date');
  }
  return (state.now = new Date(value.getTime()));
}

/** What the API and console show about a function: everything but the implementation. */
export interface ExpressionFunctionInfo {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly category: ExpressionFunctionCategory;
  /** E.g. `Left(value: text, count: whole number) → text`. */
  readonly signature: string;
  readonly parameters: readonly ExpressionFunctionParameter[];
  readonly returns: string;
  readonly description: string;
  readonly nulls: string;
  readonly examples: readonly ExpressionFunctionExample[];
  readonly deterministic: boolean;
}

/** The signature line of a function as documented. */
export function functionSignature(def: ExpressionFunctionDefinition): string {
  const params = def.parameters.map((p) => {
    const text = `${p.name}: ${p.type}`;
    return p.variadic ? `${text}, …` : p.optional ? `[${text}]` : text;
  });
  return `${def.name}(${params.join(', ')}) → ${def.returns}`;
}

/** Every function of the language, in reference order, for the API and the console. */
export function listExpressionFunctions(): ExpressionFunctionInfo[] {
  return EXPRESSION_FUNCTIONS.map((def) => ({
    name: def.name,
    aliases: def.aliases ?? [],
    category: def.category,
    signature: functionSignature(def),
    parameters: def.parameters,
    returns: def.returns,
    description: def.summary,
    nulls: def.nulls,
    examples: def.examples,
    deterministic: def.deterministic !== false,
  }));
}
