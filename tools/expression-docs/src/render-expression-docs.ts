import {
  BinaryGroup,
  compileExpression,
  DATE_FORMAT_TOKENS,
  EXAMPLE_CONTEXT,
  EXAMPLE_NOW,
  EXPRESSION_LIMITS,
  ExpressionErrorCode,
  ExpressionFunctionCategory,
  ExpressionFunctionInfo,
  ExpressionLimits,
  formatExpressionValue,
  listExpressionFunctions,
  PRECEDENCE,
} from '@meridian/domain';

/** Where the generated reference lives, relative to the repository root. */
export const EXPRESSION_DOCS_PATH = 'docs/expressions.md';

const CATEGORY_INTRO: Record<ExpressionFunctionCategory, string> = {
  Text: 'Text functions convert numbers, booleans and dates to text first (as ToString does) and refuse lists.',
  Collections: 'Multi-valued attributes are lists. A single value passed where a list is expected counts as a one-value list.',
  Logic: 'IIF and Coalesce evaluate only the arguments they need.',
  Dates:
    'Dates are instants, always shown and formatted in UTC. Date arguments also accept ISO 8601 text (`2025-01-15`, `2025-01-15T10:30:00Z`, `2025-01-15T12:30:00+02:00`; no offset means UTC) and LDAP GeneralizedTime (`20250115103000.0Z`).',
  Conversion: 'Conversions never guess: text that is not a number is an error, not null.',
  Directory: 'Helpers for directories such as Active Directory and LDAP.',
  Bits: 'Bit functions take a **mask**, not a bit index: `SetBit(v, 2)` sets the bit with value 2 (ACCOUNTDISABLE), as Microsoft documents userAccountControl flags. Hexadecimal literals (`0x10000`) make masks readable. Values and masks accept numbers and decimal text.',
};

/** Malformed expressions whose errors the reference shows; compiled when the docs are generated. */
const COMPILE_ERROR_EXAMPLES = [
  'Lower(cs["sn"]',
  'Lowr(cs["sn"])',
  'cs[sn]',
  'cs["a"] = "b"',
  'Left(cs["givenName"])',
  'IIF(cs["a"] > 1 "x", "y")',
  '1 < 2 < 3',
  'FormatDate(Now(), "YYYY-MM-DD")',
];

const CATEGORIES: readonly ExpressionFunctionCategory[] = ['Text', 'Collections', 'Logic', 'Dates', 'Conversion', 'Directory', 'Bits'];

const ERROR_CODES: Record<ExpressionErrorCode, { when: 'compile' | 'evaluate' | 'save'; meaning: string }> = {
  [ExpressionErrorCode.Syntax]: {
    when: 'compile',
    meaning:
      'Malformed text: an unexpected character or token, an unterminated string, an unknown escape, a missing `)` or `]`, chained comparisons.',
  },
  [ExpressionErrorCode.TooLong]: { when: 'compile', meaning: `More than ${n(EXPRESSION_LIMITS.maxLength)} characters.` },
  [ExpressionErrorCode.TooDeep]: {
    when: 'compile',
    meaning: `Parentheses, calls, accessors and unary operators nested more than ${n(EXPRESSION_LIMITS.maxDepth)} deep.`,
  },
  [ExpressionErrorCode.UnknownFunction]: {
    when: 'compile',
    meaning: 'A call to a function that does not exist (with a "did you mean" hint).',
  },
  [ExpressionErrorCode.ArgumentCount]: { when: 'compile', meaning: 'Too few or too many arguments.' },
  [ExpressionErrorCode.InvalidAccessor]: {
    when: 'compile',
    meaning: 'Indexing something other than `mv`/`cs`, or a key that is not a non-empty string literal.',
  },
  [ExpressionErrorCode.UnknownName]: {
    when: 'compile',
    meaning: 'A bare name that is not `true`, `false` or `null` (`this`, `process`, `givenName`…).',
  },
  [ExpressionErrorCode.UnknownAttribute]: {
    when: 'save',
    meaning: 'An accessor names an attribute the schema does not have (checked when a mapping is saved, by `findUnknownAttributes`).',
  },
  [ExpressionErrorCode.InvalidArgument]: {
    when: 'compile',
    meaning: 'A constant argument that can never work, e.g. a malformed FormatDate format or RandomPassword(4).',
  },
  [ExpressionErrorCode.Type]: {
    when: 'evaluate',
    meaning: 'A value of the wrong type, e.g. `"a" - 1`, a list given to Lower, a text condition in IIF.',
  },
  [ExpressionErrorCode.InvalidValue]: {
    when: 'evaluate',
    meaning: 'The right type but an unusable value, e.g. Left(v, -1), ToInt("abc"), an empty Split delimiter.',
  },
  [ExpressionErrorCode.DivisionByZero]: { when: 'evaluate', meaning: '`/` or `%` by zero.' },
  [ExpressionErrorCode.Overflow]: {
    when: 'evaluate',
    meaning: 'A numeric result that is not a finite number, or a whole number beyond ±2^53.',
  },
  [ExpressionErrorCode.LimitExceeded]: {
    when: 'evaluate',
    meaning: 'A string, list or the total work of one evaluation went past its limit (see Limits).',
  },
  [ExpressionErrorCode.InvalidContext]: {
    when: 'evaluate',
    meaning: 'The object being synchronised holds something that is not an attribute value (an object, a function, NaN…).',
  },
  [ExpressionErrorCode.Unavailable]: {
    when: 'evaluate',
    meaning: 'The platform lacks a cryptographically secure random generator (RandomPassword).',
  },
};

const LIMIT_TEXT: Record<keyof ExpressionLimits, string> = {
  maxLength: 'characters of expression text; longer text is rejected before it is parsed',
  maxDepth:
    'levels of nesting (parentheses, calls, accessors, unary operators); deeper text is rejected at compile time instead of exhausting the stack',
  maxStringLength: 'characters in any text an evaluation reads or produces; checked before a long result is built',
  maxListLength: 'values in any list an evaluation produces (Split)',
  maxWork: 'characters and list values one evaluation may produce in total; bounds the time of a single evaluation',
};

const GROUP_TEXT: Record<BinaryGroup, { meaning: string; associativity: string }> = {
  multiplicative: { meaning: 'multiply, divide, remainder (numbers)', associativity: 'left' },
  additive: { meaning: 'add numbers or concatenate text; subtract numbers', associativity: 'left' },
  relational: { meaning: 'less / greater than (numbers, text, dates, booleans)', associativity: 'none: `a < b < c` is an error' },
  equality: { meaning: 'equal / not equal, the same as Eq', associativity: 'none' },
  and: { meaning: 'logical and (short-circuit)', associativity: 'left' },
  or: { meaning: 'logical or (short-circuit)', associativity: 'left' },
};

function n(value: number): string {
  return value.toLocaleString('en-US');
}

/** Escapes a value for a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function code(text: string): string {
  return `\`${text}\``;
}

function anchor(name: string): string {
  return name.toLowerCase();
}

function precedenceTable(): string[] {
  const groups = new Map<number, { group: BinaryGroup; operators: string[] }>();
  for (const [operator, { power, group }] of Object.entries(PRECEDENCE)) {
    const entry = groups.get(power) ?? { group, operators: [] };
    entry.operators.push(operator);
    groups.set(power, entry);
  }
  const rows = [...groups.entries()].sort(([a], [b]) => b - a);
  const lines = [
    '| Precedence | Operators | Meaning | Associativity |',
    '|---|---|---|---|',
    '| 1 (tightest) | `( )` `f(…)` `mv[…]` `cs[…]` | grouping, calls, attribute access | — |',
    '| 2 | `!` `-` (unary) | not; negate a number | right |',
  ];
  rows.forEach(([, { group, operators }], i) => {
    lines.push(
      `| ${i + 3}${i === rows.length - 1 ? ' (loosest)' : ''} | ${operators.map((o) => code(cell(o))).join(' ')} | ${GROUP_TEXT[group].meaning} | ${GROUP_TEXT[group].associativity} |`,
    );
  });
  return lines;
}

function functionSection(def: ExpressionFunctionInfo): string[] {
  const lines = [`### ${def.name}`, '', code(def.signature), '', def.description, ''];
  if (def.aliases.length) lines.push(`Also callable as ${def.aliases.map(code).join(', ')}.`, '');
  lines.push(`**Null handling:** ${def.nulls}`, '');
  if (!def.deterministic) lines.push('**Not deterministic:** the result depends on the clock or on randomness.', '');
  lines.push('| Example | Result |', '|---|---|');
  for (const example of def.examples) lines.push(`| ${code(cell(example.expression))} | ${code(cell(example.result))} |`);
  lines.push('');
  return lines;
}

function exampleContext(): string[] {
  const lines = ['| Accessor | Value |', '|---|---|'];
  for (const source of ['mv', 'cs'] as const) {
    for (const [name, value] of Object.entries(EXAMPLE_CONTEXT[source])) {
      lines.push(`| ${code(cell(`${source}[${JSON.stringify(name)}]`))} | ${code(cell(formatExpressionValue(value as never)))} |`);
    }
  }
  return lines;
}

/** Renders docs/expressions.md from the function table, limits, error codes and operator table. */
export function renderExpressionDocs(): string {
  const functions = listExpressionFunctions();
  const out: string[] = [
    '# Expression language',
    '',
    '<!-- Generated by tools/expression-docs from the function table the evaluator registers.',
    '     Do not edit by hand: run `node -r ./tools/ts-register.js tools/expression-docs/src/generate.ts`. -->',
    '',
    'Attribute mappings of sync rules compute a target value from the object being synchronised with a small,',
    'side-effect-free expression language (DOMAIN.md §4). Two typical mappings:',
    '',
    '```',
    '"uid=" + Lower(cs["givenName"]) + "." + Lower(cs["sn"]) + ",ou=people,dc=example,dc=org"',
    'IIF(Eq(mv["Status"], "Archived"), DisableUser(Coalesce(cs["userAccountControl"], 512)), EnableUser(512))',
    '```',
    '',
    'An expression is checked when the mapping is saved (errors carry a line and column) and compiled once;',
    'evaluating it cannot reach the host, has no side effects and is bounded in time and memory.',
    'The design decision is recorded in [ADR 0002](adr/0002-expression-language.md).',
    '',
    '## Syntax',
    '',
    '### Literals',
    '',
    '| Kind | Examples | Notes |',
    '|---|---|---|',
    '| Text | `"Ada"`, `\'Ada\'`, `"Lovelace, Ada"` | Double or single quotes; must close on the same line. |',
    '| Number | `42`, `1.5`, `2e3`, `0x10000` | Decimal with optional fraction and exponent, or hexadecimal (handy for bit masks). A leading `-` is the negation operator. |',
    '| Boolean | `true`, `false` | Keywords are case-insensitive (`True`, `FALSE`). |',
    '| Null | `null` | No value. |',
    '',
    'Escapes inside text: `\\"` `\\\'` `\\\\` `\\/` `\\n` `\\r` `\\t` `\\b` `\\f` `\\v` `\\0`, `\\xHH`, `\\uHHHH` and `\\u{H…}` (code point up to 10FFFF).',
    'Any other escape is an error, so a Windows path must be written `"C:\\\\temp"`.',
    '',
    '### Reading attributes',
    '',
    '- `mv["Display Name"]` reads a metaverse attribute; `cs["givenName"]` reads a connected-system attribute.',
    '- Names are matched **ignoring case**; the exact spelling wins if an object has two names that differ only in case.',
    '  `mv` and `cs` themselves may be written in any case.',
    '- A missing attribute is `null`. A multi-valued attribute is a **list**; its null entries are dropped.',
    '- The name must be a non-empty string literal, so every expression declares the attributes it reads: the',
    '  compiled form lists them (`inputs`), the engine can skip or flag objects that lack them, and the API',
    '  validates them against the schema when a mapping is saved.',
    '- Only `mv` and `cs` can be indexed, and only once: there is no `.` member access, no `obj["a"]["b"]`.',
    '',
    '### Functions',
    '',
    'A call is a function name followed by arguments in parentheses: `Left(cs["givenName"], 1)`.',
    'Function names are **case-insensitive** (`lower(...)`, `LOWER(...)`, `Lower(...)` are the same); a few have aliases.',
    'The compiler rejects unknown functions and wrong argument counts.',
    '',
    '### Operators and precedence',
    '',
    ...precedenceTable(),
    '',
    'Whitespace and line breaks may appear between tokens. There are no comments, variables, loops,',
    'assignments, member access, template literals or user-defined functions.',
    '',
    '## Values and types',
    '',
    '| Type | Comes from |',
    '|---|---|',
    '| text | text literals, String attributes, text functions |',
    '| number | number literals, Integer/Decimal attributes (IEEE-754 double; whole numbers are exact up to ±2^53) |',
    '| boolean | `true`/`false`, Boolean attributes, comparisons |',
    '| date | DateTime attributes, Now, Today, FromFileTime (an instant; shown as ISO 8601 UTC) |',
    '| list | multi-valued attributes, Split |',
    '| null | `null`, missing attributes, null-safe functions given null |',
    '',
    'A `bigint` attribute value becomes a number when it is exact, otherwise decimal text (as FILETIME values are).',
    '',
    '## Operator semantics and null',
    '',
    '| Expression | Result |',
    '|---|---|',
    '| `a + b` | Both numbers: their sum. Either is text: text concatenation, the other side converted as by ToString and **null as empty** (`"uid=" + null` is `"uid="`). Otherwise, if either is null: null. Lists are an error (use Join). |',
    '| `a - b`, `a * b`, `a / b`, `a % b` | Numbers only; null if either side is null. `7 / 2` is `3.5`; `%` keeps the sign of `a`. **Division or remainder by zero is an error** (DivisionByZero) rather than a silent null, because a null would clear the target attribute. |',
    '| `a == b`, `a != b` | Null-aware equality, the same as Eq: `null == null` is true, `null == "x"` is false. No conversion between types: `1 == "1"` is false. Text compares case-sensitively (use Lower on both sides). |',
    '| `a < b` … `a >= b` | Same-type numbers, text (ordinal), dates or booleans. **False when either side is null.** Different types or lists are an error. |',
    '| `a && b`, `a \\|\\| b`, `!a` | Operands must be true, false or null; **null counts as false**. Short-circuit. Other types are an error. |',
    '| `-a` | Negates a number; null stays null. |',
    '| `IIF(c, x, y)` | A null condition chooses `y`. |',
    "| string functions | Return null for null input (DOMAIN.md §4); the reference gives each function's rule. |",
    '',
    '## Errors',
    '',
    'Every failure is an `ExpressionError` with a `code`, a `message`, a `position` (1-based `line` and',
    '`column`, 0-based `offset`, counted in UTF-16 code units), the offending `token` (its source text; empty',
    'at the end of the input) and a `phase` (`compile` or `evaluate`). Compile errors are found when a mapping',
    'is saved; the API turns them into a `VALIDATION_ERROR` naming the field with the position in `details`',
    '(`expressionValidationError`). Evaluation errors point at the operator or call that failed and become the',
    '`ExpressionEvaluationError` of the execution item.',
    '',
    '| Code | Found | Meaning |',
    '|---|---|---|',
    ...Object.entries(ERROR_CODES).map(([codeName, { when, meaning }]) => `| ${code(codeName)} | ${when} | ${cell(meaning)} |`),
    '',
    'Examples of compile errors (generated by compiling them):',
    '',
    '| Expression | Code | Message |',
    '|---|---|---|',
    ...COMPILE_ERROR_EXAMPLES.map((text) => {
      const result = compileExpression(text);
      if (result.ok) throw new Error(`Documented compile error example compiles: ${text}`);
      return `| ${code(cell(text))} | ${code(result.error.code)} | ${cell(result.error.displayMessage)} |`;
    }),
    '',
    '## Limits',
    '',
    '| Limit | Value | Meaning |',
    '|---|---|---|',
    ...(Object.keys(LIMIT_TEXT) as (keyof ExpressionLimits)[]).map(
      (key) => `| ${code(key)} | ${n(EXPRESSION_LIMITS[key])} | ${LIMIT_TEXT[key]} |`,
    ),
    '',
    'Without loops or recursion, an expression evaluates each node at most once, so these limits bound the',
    'time and memory of one evaluation; a runaway expression fails with `LimitExceeded` instead of hanging.',
    '',
    '## Safety',
    '',
    '- The text is parsed by a hand-written parser into a syntax tree and compiled to closures; nothing is',
    '  ever passed to `eval`, `Function` or `vm`.',
    '- `mv[…]`/`cs[…]` read only **own** properties of the attribute record (or a Map, or a lookup function),',
    '  never the prototype chain: `cs["constructor"]` and `cs["__proto__"]` are simply missing (null).',
    '- Functions are looked up in a fixed table; names such as `constructor`, `this`, `process`, `globalThis`,',
    '  `require` or `import` are compile errors. There is no member access, so nothing can reach host objects.',
    '- Values are copied out of the context (dates, lists); objects, functions and symbols are refused.',
    '- Now and Today read an injectable clock; RandomPassword reads the Web Crypto CSPRNG. Nothing else',
    '  touches global state.',
    '',
    '## Using the library',
    '',
    '```ts',
    "import { AttributeValues, ExpressionCache, expressionValidationError } from '@meridian/domain';",
    '',
    'const cache = new ExpressionCache(1000);               // bounded LRU of compiled expressions',
    'const result = cache.compile(mapping.expression);       // or compileExpression(text)',
    'if (!result.ok) throw expressionValidationError(result.error, "expression");',
    'result.expression.inputs;                                // { mv: ["Status"], cs: ["userAccountControl"] }',
    'const cs = AttributeValues.from(cso.attributes);         // normalise once per object, share across mappings',
    'const value = result.expression.evaluate({ mv: mvo.attributes, cs }, { now: () => clock.now() });',
    '```',
    '',
    '`findUnknownAttributes(expression, { mv: names, cs: names })` reports accessors that name attributes the',
    'schema lacks; `missingInputs(context)` lists the inputs that are null or empty for one object;',
    '`listExpressionFunctions()` returns the table below for the API and console.',
    '',
    '## Function reference',
    '',
    `The examples are evaluated by the test suite against the object below, with the clock at \`${EXAMPLE_NOW}\`.`,
    '',
    ...exampleContext(),
    '',
  ];

  for (const category of CATEGORIES) {
    const defs = functions.filter((d) => d.category === category);
    out.push(`### ${category} functions`, '', CATEGORY_INTRO[category], '', '| Function | Summary |', '|---|---|');
    for (const def of defs) out.push(`| [${def.name}](#${anchor(def.name)}) | ${cell(def.description)} |`);
    out.push('');
  }

  out.push(
    '### Date format tokens',
    '',
    'FormatDate patterns, always in UTC. Runs of the letters y M d H m s f must be one of these tokens;',
    '`Y`, `D`, `h`, `S` and `F` are rejected to catch patterns meant for other libraries (quote them to print them).',
    '',
    '| Token | Meaning |',
    '|---|---|',
  );
  for (const { token, meaning } of DATE_FORMAT_TOKENS) out.push(`| ${code(token)} | ${meaning} |`);
  out.push('', 'The LDAP GeneralizedTime form is `yyyyMMddHHmmss.0Z`.', '');

  out.push('## Functions', '');
  for (const category of CATEGORIES) {
    for (const def of functions.filter((d) => d.category === category)) out.push(...functionSection(def));
  }
  return `${out.join('\n').trimEnd()}\n`;
}
