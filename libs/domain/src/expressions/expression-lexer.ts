import { ExpressionErrorCode, expressionError, TokenRef } from './expression-error';

export type TokenKind = 'string' | 'number' | 'identifier' | 'operator' | '(' | ')' | '[' | ']' | ',' | 'end';

/** The operators of the language, longest first where one is a prefix of another. */
export const OPERATORS = ['&&', '||', '==', '!=', '<=', '>=', '<', '>', '!', '+', '-', '*', '/', '%'] as const;
export type OperatorText = (typeof OPERATORS)[number];

export interface Token extends TokenRef {
  readonly kind: TokenKind;
  /** The decoded value of a string or number literal. */
  readonly value?: string | number;
}

const PUNCTUATION: Record<string, TokenKind | undefined> = { '(': '(', ')': ')', '[': '[', ']': ']', ',': ',' };

/** Characters that are not part of the language, with the hint an administrator needs. */
const HINTS: Record<string, string | undefined> = {
  '=': 'use == (or Eq(a, b)) to compare',
  '&': 'use && for "and"',
  '|': 'use || for "or"',
  '.': 'read attributes with mv["name"] or cs["name"]',
  '`': 'template literals are not supported; join text with +',
  '?': 'use IIF(condition, whenTrue, whenFalse)',
  ':': 'use IIF(condition, whenTrue, whenFalse)',
  $: 'read attributes with mv["name"] or cs["name"]',
  '{': 'objects and blocks are not supported',
  '}': 'objects and blocks are not supported',
  ';': 'an expression is a single value, not statements',
  '\\': 'escape sequences are only allowed inside string literals',
};

const SIMPLE_ESCAPES: Record<string, string | undefined> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c);
const isHex = (c: string) => /^[0-9a-fA-F]$/.test(c);
const isSpace = (c: string) => /^\s$/.test(c);

/** Shows a character the way an administrator can recognise it, invisible ones as \u escapes. */
export function displayChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && /[\s\p{C}]/u.test(ch))) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return ch;
}

/** Splits expression text into tokens; the last one is always `end`. Throws ExpressionError on bad input. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const at = (offset: number, tokenText: string): TokenRef => ({ offset, line, column: offset - lineStart + 1, text: tokenText });
  const fail = (offset: number, tokenText: string, message: string): never => {
    throw expressionError(ExpressionErrorCode.Syntax, message, at(offset, tokenText), 'compile');
  };

  while (i < text.length) {
    const ch = text[i];
    const code = text.charCodeAt(i);

    if (ch === '\n' || ch === '\r') {
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      line++;
      lineStart = i;
      continue;
    }
    if (isSpace(ch)) {
      i++;
      continue;
    }

    const start = i;
    if (ch === '"' || ch === "'") {
      const { value, end } = readString(text, i, (offset, tokenText, message) => fail(offset, tokenText, message));
      tokens.push({ kind: 'string', value, ...at(start, text.slice(start, end)) });
      i = end;
      continue;
    }

    if (isDigit(code)) {
      const { value, end } = readNumber(text, i, (offset, tokenText, message) => fail(offset, tokenText, message));
      tokens.push({ kind: 'number', value, ...at(start, text.slice(start, end)) });
      i = end;
      continue;
    }

    if (isIdentStart(code)) {
      while (i < text.length && isIdentPart(text.charCodeAt(i))) i++;
      tokens.push({ kind: 'identifier', ...at(start, text.slice(start, i)) });
      continue;
    }

    const punctuation = PUNCTUATION[ch];
    if (punctuation) {
      tokens.push({ kind: punctuation, ...at(start, ch) });
      i++;
      continue;
    }

    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'operator', ...at(start, op) });
      i += op.length;
      continue;
    }

    const whole = String.fromCodePoint(text.codePointAt(i) ?? code);
    const hint = HINTS[ch];
    fail(start, whole, `Unexpected character '${displayChar(whole)}'${hint ? `: ${hint}` : ''}`);
  }
  tokens.push({ kind: 'end', ...at(text.length, '') });
  return tokens;
}

type Fail = (offset: number, tokenText: string, message: string) => never;

function readString(text: string, start: number, fail: Fail): { value: string; end: number } {
  const quote = text[start];
  const parts: string[] = [];
  let i = start + 1;
  let chunkStart = i;
  for (;;) {
    if (i >= text.length || text[i] === '\n' || text[i] === '\r') {
      fail(
        start,
        text.slice(start, Math.min(i, start + 20)),
        `Unterminated string literal: close it with ${quote} on the same line (use \\n for a line break)`,
      );
    }
    const ch = text[i];
    if (ch === quote) break;
    if (ch !== '\\') {
      i++;
      continue;
    }
    parts.push(text.slice(chunkStart, i));
    const escapeStart = i;
    const next = text[i + 1];
    const simple = next === undefined ? undefined : SIMPLE_ESCAPES[next];
    if (simple !== undefined && !(next === '0' && isDigit(text.charCodeAt(i + 2)))) {
      parts.push(simple);
      i += 2;
    } else if (next === 'x' && isHex(text[i + 2] ?? '') && isHex(text[i + 3] ?? '')) {
      parts.push(String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16)));
      i += 4;
    } else if (next === 'u' && text[i + 2] === '{') {
      const close = text.indexOf('}', i + 3);
      const hex = close < 0 ? '' : text.slice(i + 3, close);
      const cp = /^[0-9a-fA-F]{1,6}$/.test(hex) ? parseInt(hex, 16) : NaN;
      if (!(cp <= 0x10ffff))
        fail(
          escapeStart,
          text.slice(escapeStart, close < 0 ? i + 3 : close + 1),
          'Invalid \\u{…} escape: expected 1 to 6 hex digits up to 10FFFF',
        );
      parts.push(String.fromCodePoint(cp));
      i = close + 1;
    } else if (next === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex))
        fail(escapeStart, text.slice(escapeStart, i + 6), 'Invalid \\u escape: expected exactly 4 hex digits');
      parts.push(String.fromCharCode(parseInt(hex, 16)));
      i += 6;
    } else {
      const shown = next === undefined || next === '\n' || next === '\r' ? '\\' : `\\${next}`;
      fail(escapeStart, shown, `Unknown escape sequence '${shown}' in a string literal (use \\\\ for a backslash)`);
    }
    chunkStart = i;
  }
  parts.push(text.slice(chunkStart, i));
  return { value: parts.join(''), end: i + 1 };
}

function readNumber(text: string, start: number, fail: Fail): { value: number; end: number } {
  let i = start;
  let value: number;
  if (text[i] === '0' && (text[i + 1] === 'x' || text[i + 1] === 'X')) {
    i += 2;
    while (i < text.length && isHex(text[i])) i++;
    const digits = text.slice(start + 2, i);
    value = digits ? parseInt(digits, 16) : NaN;
    if (!digits) fail(start, text.slice(start, i), 'Invalid hexadecimal number: expected digits after 0x');
    if (!Number.isSafeInteger(value)) fail(start, text.slice(start, i), 'Hexadecimal number is too large (limit 0x1FFFFFFFFFFFFF)');
  } else {
    while (i < text.length && isDigit(text.charCodeAt(i))) i++;
    if (text[i] === '.' && isDigit(text.charCodeAt(i + 1))) {
      i++;
      while (i < text.length && isDigit(text.charCodeAt(i))) i++;
    }
    if (
      (text[i] === 'e' || text[i] === 'E') &&
      (isDigit(text.charCodeAt(i + 1)) || (/[+-]/.test(text[i + 1] ?? '') && isDigit(text.charCodeAt(i + 2))))
    ) {
      i += 2;
      while (i < text.length && isDigit(text.charCodeAt(i))) i++;
    }
    value = Number(text.slice(start, i));
    if (!Number.isFinite(value)) fail(start, text.slice(start, i), 'Number is too large');
  }
  if (i < text.length && (isIdentPart(text.charCodeAt(i)) || text[i] === '.')) {
    let end = i;
    while (end < text.length && (isIdentPart(text.charCodeAt(end)) || text[end] === '.')) end++;
    fail(start, text.slice(start, end), `Invalid number '${text.slice(start, end)}'`);
  }
  return { value, end: i };
}
