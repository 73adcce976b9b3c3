import { isTransactionControl, splitSqlStatements, SqlScriptError } from './sql-statements';

const texts = (sql: string, dialect: 'postgres' | 'mysql' = 'postgres') => splitSqlStatements(sql, dialect).map((s) => s.text);

describe('splitSqlStatements', () => {
  it('splits on top-level semicolons and numbers statements with their start lines', () => {
    const sql = 'CREATE TABLE t (id int);\n\nINSERT INTO t VALUES (1);\n  -- a comment\nUPDATE t SET id = 2\n  WHERE id = 1;\n';
    expect(splitSqlStatements(sql, 'postgres')).toEqual([
      { text: 'CREATE TABLE t (id int)', number: 1, line: 1 },
      { text: 'INSERT INTO t VALUES (1)', number: 2, line: 3 },
      { text: 'UPDATE t SET id = 2\n  WHERE id = 1', number: 3, line: 5 },
    ]);
  });

  it('keeps a last statement without a semicolon and drops empty ones and comment-only text', () => {
    expect(texts('SELECT 1;;  ; SELECT 2')).toEqual(['SELECT 1', 'SELECT 2']);
    expect(texts('-- only a comment\n/* and another */\n')).toEqual([]);
  });

  it.each([
    ["INSERT INTO t VALUES ('a;b', 'it''s; fine');SELECT 1", ["INSERT INTO t VALUES ('a;b', 'it''s; fine')", 'SELECT 1']],
    ['SELECT "odd;name" FROM t; SELECT 2', ['SELECT "odd;name" FROM t', 'SELECT 2']],
    ["SELECT E'a\\';b'; SELECT 2", ["SELECT E'a\\';b'", 'SELECT 2']],
    ['SELECT 1 /* ; */; SELECT /* nested /* ; */ still */ 2', ['SELECT 1 /* ; */', 'SELECT /* nested /* ; */ still */ 2']],
    ['SELECT 1 -- ; not a split\n+ 1; SELECT 2', ['SELECT 1 -- ; not a split\n+ 1', 'SELECT 2']],
    ['DO $$ BEGIN PERFORM 1; END $$; SELECT 2', ['DO $$ BEGIN PERFORM 1; END $$', 'SELECT 2']],
    [
      'CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql; SELECT $1',
      ['CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql', 'SELECT $1'],
    ],
  ])('respects PostgreSQL quoting in %p', (sql, expected) => {
    expect(texts(sql)).toEqual(expected);
  });

  it.each([
    ["INSERT INTO t VALUES ('a\\';b'); SELECT 1", ["INSERT INTO t VALUES ('a\\';b')", 'SELECT 1']],
    ['SELECT `we;ird` FROM t # comment ; here\n; SELECT 2', ['SELECT `we;ird` FROM t # comment ; here', 'SELECT 2']],
    [
      'DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END//\nDELIMITER ;\nCALL p();',
      ['CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END', 'CALL p()'],
    ],
  ])('respects MySQL quoting and DELIMITER in %p', (sql, expected) => {
    expect(texts(sql, 'mysql')).toEqual(expected);
  });

  it.each([
    ["SELECT 'open", "line 1: a ' quote is never closed."],
    ['SELECT 1;\n/* open', 'line 2: a /* comment is never closed.'],
    ['SELECT 1;\n\nDO $x$ BEGIN', 'line 3: the dollar quote $x$ is never closed.'],
  ])('refuses %p', (sql, message) => {
    expect(() => splitSqlStatements(sql, 'postgres')).toThrow(SqlScriptError);
    expect(() => splitSqlStatements(sql, 'postgres')).toThrow(message);
  });

  it.each<[string, 'postgres' | 'mysql', boolean]>([
    ['BEGIN', 'postgres', true],
    ['begin transaction', 'postgres', true],
    ['START TRANSACTION', 'mysql', true],
    ['COMMIT', 'postgres', true],
    ['commit work', 'mysql', true],
    ['END', 'postgres', true],
    ['ROLLBACK', 'postgres', true],
    ['ROLLBACK TO SAVEPOINT a', 'postgres', false],
    ['SAVEPOINT a', 'postgres', false],
    ['SET autocommit = 1', 'mysql', true],
    ['UPDATE t SET commit = 1', 'postgres', false],
    ['END', 'mysql', false],
  ])('%p in %s is transaction control: %p', (sql, dialect, expected) => {
    expect(isTransactionControl(sql, dialect)).toBe(expected);
  });
});
