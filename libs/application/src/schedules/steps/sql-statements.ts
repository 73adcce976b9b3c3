export type SqlDialect = 'postgres' | 'mysql';

export interface SqlStatement {
  /** The statement without its terminating delimiter. */
  text: string;
  /** 1-based position in the script, counting only real statements. */
  number: number;
  /** 1-based line of the script where the statement starts. */
  line: number;
}

/** A script that cannot be split into statements (an unterminated quote or comment…). */
export class SqlScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SqlScriptError';
  }
}

const DOLLAR_TAG = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/;

/**
 * Splits a SQL script into statements on top-level delimiters, so each can be run (and a failure named)
 * on its own. Quotes, identifiers, comments and PostgreSQL dollar quoting are respected; MySQL scripts
 * may change the delimiter with a `DELIMITER //` line, as the mysql client allows, for stored programs.
 */
export function splitSqlStatements(sql: string, dialect: SqlDialect): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let delimiter = ';';
  let start = 0;
  let line = 1;
  let startLine = 1;
  let hasContent = false;
  let i = 0;

  const push = (end: number) => {
    const text = sql.slice(start, end).trim();
    if (hasContent && text) statements.push({ text, number: statements.length + 1, line: startLine });
    hasContent = false;
  };
  const advanceTo = (end: number) => {
    for (; i < end; i++) if (sql[i] === '\n') line++;
  };
  const lineStart = (pos: number) => pos === 0 || sql[pos - 1] === '\n';

  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (!hasContent && /\s/.test(c)) {
      if (c === '\n') line++;
      i++;
      start = i;
      startLine = line;
      continue;
    }
    if (dialect === 'mysql' && !hasContent && lineStart(i) && /^delimiter[ \t]/i.test(sql.slice(i, i + 10))) {
      const end = sql.indexOf('\n', i);
      const value = sql.slice(i + 9, end < 0 ? sql.length : end).trim();
      if (!value || /\s/.test(value)) throw new SqlScriptError(`line ${line}: DELIMITER needs one delimiter such as // or $$.`);
      delimiter = value;
      i = end < 0 ? sql.length : end;
      start = i;
      continue;
    }
    if ((c === '-' && next === '-') || (dialect === 'mysql' && c === '#')) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      if (!hasContent) start = i;
      continue;
    }
    if (c === '/' && next === '*') {
      const open = line;
      let depth = 1;
      let j = i + 2;
      while (j < sql.length && depth > 0) {
        if (sql[j] === '*' && sql[j + 1] === '/') {
          depth--;
          j += 2;
          continue;
        }
        if (dialect === 'postgres' && sql[j] === '/' && sql[j + 1] === '*') {
          depth++;
          j += 2;
          continue;
        }
        j++;
      }
      if (depth > 0) throw new SqlScriptError(`line ${open}: a /* comment is never closed.`);
      advanceTo(j);
      if (!hasContent) {
        start = i;
        startLine = line;
      }
      continue;
    }
    if (sql.startsWith(delimiter, i)) {
      push(i);
      advanceTo(i + delimiter.length);
      start = i;
      startLine = line;
      continue;
    }
    hasContent = true;
    if (c === "'" || c === '"' || (c === '`' && dialect === 'mysql')) {
      const open = line;
      const escapes =
        dialect === 'mysql' ? c !== '`' : c === "'" && /[eE]/.test(sql[i - 1] ?? '') && !/[A-Za-z0-9_]/.test(sql[i - 2] ?? '');
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new SqlScriptError(`line ${open}: a ${c} quote is never closed.`);
        if (escapes && sql[j] === '\\') {
          j += 2;
          continue;
        }
        if (sql[j] === c) {
          if (sql[j + 1] === c) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      advanceTo(j + 1);
      continue;
    }
    if (c === '$' && dialect === 'postgres' && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 64))?.[0];
      if (tag) {
        const close = sql.indexOf(tag, i + tag.length);
        if (close < 0) throw new SqlScriptError(`line ${line}: the dollar quote ${tag} is never closed.`);
        advanceTo(close + tag.length);
        continue;
      }
    }
    advanceTo(i + 1);
  }
  push(sql.length);
  return statements;
}

const TRANSACTION_CONTROL =
  /^(?:begin(?:\s+(?:work|transaction))?|start\s+transaction|commit|end(?:\s+(?:work|transaction))?|rollback(?!\s+(?:work\s+)?to\b))\s*(?:work|transaction)?\s*$/i;

/** Statements that would end Meridian's transaction early (the script must run as one transaction). */
export function isTransactionControl(statement: string, dialect: SqlDialect): boolean {
  const text = statement.trim();
  if (dialect === 'mysql' && /^end\b/i.test(text)) return false;
  return TRANSACTION_CONTROL.test(text) || (dialect === 'mysql' && /^set\s+(?:@@session\.|session\s+)?autocommit\b/i.test(text));
}
