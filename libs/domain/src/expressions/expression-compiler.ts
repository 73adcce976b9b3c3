import { AstNode, BinaryNode, CallNode, IndexNode, nodeToken, UnaryNode } from './expression-ast';
import { ExpressionContext, readAttribute } from './expression-context';
import { ExpressionError, ExpressionErrorCode, expressionError, SourcePosition, START_OF_TEXT, TokenRef } from './expression-error';
import { ExpressionFunctionDefinition, EXPRESSION_FUNCTIONS } from './expression-functions';
import { EXPRESSION_LIMITS } from './expression-limits';
import { parseExpression } from './expression-parser';
import { CallSite, charge, conditionValue, EvalState, Evaluator, listTooLong, stringTooLong } from './expression-runtime';
import { compareItems, describeValue, ExpressionValue, isList, itemToText, typeName, valuesEqual } from './expression-value';

export type AttributeSourceName = 'mv' | 'cs';

/** The attributes an expression reads, each once, spelled as first written, in order of appearance. */
export interface ExpressionInputs {
  readonly mv: readonly string[];
  readonly cs: readonly string[];
}

/** One `mv[…]`/`cs[…]` in the text, with its position (for schema validation errors). */
export interface AttributeReference {
  readonly source: AttributeSourceName;
  readonly name: string;
  readonly position: SourcePosition;
  /** The accessor as written, e.g. `cs["givenName"]`. */
  readonly token: string;
}

export interface EvaluateOptions {
  /** The clock Now() and Today() read; defaults to the system clock. */
  readonly now?: () => Date;
}

/** A checked, compiled expression: evaluate it as often as needed; it holds no per-object state. */
export interface CompiledExpression {
  readonly text: string;
  readonly inputs: ExpressionInputs;
  readonly references: readonly AttributeReference[];
  /** Canonical names of the functions called. */
  readonly functions: readonly string[];
  /** False when the result depends on the clock or randomness (Now, Today, RandomPassword). */
  readonly deterministic: boolean;
  /** Evaluates against one object; throws ExpressionError when evaluation fails. */
  evaluate(context?: ExpressionContext, options?: EvaluateOptions): ExpressionValue;
  /** The inputs that are null or empty in a context, so the engine can decide whether to evaluate. */
  missingInputs(context?: ExpressionContext): ExpressionInputs;
}

export type CompileResult =
  { readonly ok: true; readonly expression: CompiledExpression } | { readonly ok: false; readonly error: ExpressionError };

const REGISTRY: ReadonlyMap<string, ExpressionFunctionDefinition> = (() => {
  const map = new Map<string, ExpressionFunctionDefinition>();
  for (const def of EXPRESSION_FUNCTIONS) {
    for (const name of [def.name, ...(def.aliases ?? [])]) {
      const key = name.toLowerCase();
      if (map.has(key)) throw new Error(`Expression function ${name} is registered twice`);
      map.set(key, def);
    }
  }
  return map;
})();

/** Looks a function up by name or alias, ignoring case. */
export function findExpressionFunction(name: string): ExpressionFunctionDefinition | undefined {
  return REGISTRY.get(name.toLowerCase());
}

/** Parses, checks and compiles expression text; never throws for bad input (returns the error). */
export function compileExpression(text: string): CompileResult {
  try {
    const ast = parseExpression(text);
    const compiler = new Compiler();
    const root = compiler.compile(ast);
    return { ok: true, expression: new Compiled(text, root, compiler) };
  } catch (e) {
    if (e instanceof ExpressionError) return { ok: false, error: e };
    throw e;
  }
}

/** Like compileExpression but throws the ExpressionError. */
export function compileExpressionOrThrow(text: string): CompiledExpression {
  const result = compileExpression(text);
  if (!result.ok) throw result.error;
  return result.expression;
}

class Compiled implements CompiledExpression {
  readonly inputs: ExpressionInputs;
  readonly references: readonly AttributeReference[];
  readonly functions: readonly string[];
  readonly deterministic: boolean;

  constructor(
    readonly text: string,
    private readonly root: Evaluator,
    compiler: Compiler,
  ) {
    this.inputs = Object.freeze({ mv: Object.freeze([...compiler.mv.values()]), cs: Object.freeze([...compiler.cs.values()]) });
    this.references = Object.freeze(compiler.references);
    this.functions = Object.freeze([...compiler.functions]);
    this.deterministic = compiler.deterministic;
    Object.freeze(this);
  }

  evaluate(context?: ExpressionContext, options?: EvaluateOptions): ExpressionValue {
    const state: EvalState = { mv: context?.mv, cs: context?.cs, clock: options?.now, now: undefined, work: 0 };
    return this.root(state);
  }

  missingInputs(context?: ExpressionContext): ExpressionInputs {
    const missing = (source: AttributeSourceName) =>
      this.inputs[source].filter((name) => {
        const lower = name.toLowerCase();
        const ref = this.references.find((r) => r.source === source && r.name.toLowerCase() === lower);
        const at: TokenRef = { ...(ref?.position ?? START_OF_TEXT), text: ref?.token ?? '' };
        const value = readAttribute(context?.[source], name, lower, at);
        return value === null || (isList(value) && value.length === 0);
      });
    return { mv: missing('mv'), cs: missing('cs') };
  }
}

const EMPTY_ARGS: readonly ExpressionValue[] = Object.freeze([]);

class Compiler {
  readonly mv = new Map<string, string>();
  readonly cs = new Map<string, string>();
  readonly references: AttributeReference[] = [];
  readonly functions = new Set<string>();
  deterministic = true;

  compile(node: AstNode): Evaluator {
    switch (node.kind) {
      case 'literal': {
        const value = node.value;
        return () => value;
      }
      case 'name':
        throw compileError(
          ExpressionErrorCode.UnknownName,
          `Unknown name '${node.name}': read attributes with mv["…"] or cs["…"], call functions with parentheses, and write text in quotes`,
          node.at,
        );
      case 'index':
        return this.attribute(node);
      case 'call':
        return this.call(node);
      case 'unary':
        return this.unary(node);
      case 'binary':
        return this.binary(node);
    }
  }

  private attribute(node: IndexNode): Evaluator {
    const source = node.target.toLowerCase();
    if (source !== 'mv' && source !== 'cs') {
      throw compileError(ExpressionErrorCode.InvalidAccessor, `Only mv[…] and cs[…] can be indexed, not '${node.target}'`, node.at);
    }
    const key = node.key;
    if (key.kind !== 'literal' || typeof key.value !== 'string') {
      throw compileError(
        ExpressionErrorCode.InvalidAccessor,
        `The attribute name in ${source}[…] must be a string literal, such as ${source}["givenName"]`,
        nodeToken(key),
      );
    }
    const name = key.value;
    if (name.trim() === '')
      throw compileError(ExpressionErrorCode.InvalidAccessor, `The attribute name in ${source}[…] must not be empty`, key.at);
    const lower = name.toLowerCase();
    const seen = source === 'mv' ? this.mv : this.cs;
    if (!seen.has(lower)) seen.set(lower, name);
    const at = node.span;
    this.references.push(
      Object.freeze({ source, name, position: { line: at.line, column: at.column, offset: at.offset }, token: at.text }),
    );
    return source === 'mv' ? (state) => readAttribute(state.mv, name, lower, at) : (state) => readAttribute(state.cs, name, lower, at);
  }

  private call(node: CallNode): Evaluator {
    const def = findExpressionFunction(node.name);
    if (!def) throw compileError(ExpressionErrorCode.UnknownFunction, unknownFunctionMessage(node.name), node.at);
    const min = def.parameters.filter((p) => !p.optional).length;
    const max = def.parameters.some((p) => p.variadic) ? Infinity : def.parameters.length;
    const count = node.args.length;
    if (count < min || count > max) {
      const expected =
        max === Infinity ? `at least ${plural(min, 'argument')}` : min === max ? plural(min, 'argument') : `${min} to ${max} arguments`;
      const list = def.parameters.map((p) => (p.optional ? `[${p.name}]` : p.variadic ? `${p.name}, …` : p.name)).join(', ');
      const at = count > max ? nodeToken(node.args[max]) : node.at;
      throw compileError(ExpressionErrorCode.ArgumentCount, `${def.name}(${list}) expects ${expected} but got ${count}`, at);
    }
    def.check?.(node.args.map(constantValue), (arg, message) => {
      throw compileError(ExpressionErrorCode.InvalidArgument, message, nodeToken(node.args[arg]));
    });
    this.functions.add(def.name);
    if (def.deterministic === false) this.deterministic = false;

    const args = node.args.map((arg) => this.compile(arg));
    const site = new CallSite(
      def.name,
      def.parameters.map((p) => p.name),
      node.at,
      node.args.map(nodeToken),
    );
    if (def.special) return def.special(args, site);
    const impl = def.evaluate;
    if (!impl) throw new Error(`Expression function ${def.name} has no implementation`);
    switch (args.length) {
      case 0:
        return (state) => checkResult(impl(EMPTY_ARGS, site, state), site.at, state);
      case 1: {
        const [a] = args;
        return (state) => checkResult(impl([a(state)], site, state), site.at, state);
      }
      case 2: {
        const [a, b] = args;
        return (state) => checkResult(impl([a(state), b(state)], site, state), site.at, state);
      }
      case 3: {
        const [a, b, c] = args;
        return (state) => checkResult(impl([a(state), b(state), c(state)], site, state), site.at, state);
      }
      default:
        return (state) =>
          checkResult(
            impl(
              args.map((arg) => arg(state)),
              site,
              state,
            ),
            site.at,
            state,
          );
    }
  }

  private unary(node: UnaryNode): Evaluator {
    const operand = this.compile(node.operand);
    const at = node.at;
    if (node.operator === '!') {
      const operandAt = nodeToken(node.operand);
      return (state) => !conditionValue(operand(state), 'The operand of !', operandAt);
    }
    return (state) => {
      const v = operand(state);
      if (v === null) return null;
      if (typeof v !== 'number') throw typeError(`Cannot negate ${describeValue(v)}`, at);
      return 0 - v;
    };
  }

  private binary(node: BinaryNode): Evaluator {
    const operands = node.operands.map((operand) => this.compile(operand));
    const ats = node.operators.map((o) => o.at);
    const operandAts = node.operands.map(nodeToken);
    switch (node.group) {
      case 'or':
        return (state) => {
          for (let i = 0; i < operands.length; i++)
            if (conditionValue(operands[i](state), 'The operands of ||', operandAts[i])) return true;
          return false;
        };
      case 'and':
        return (state) => {
          for (let i = 0; i < operands.length; i++)
            if (!conditionValue(operands[i](state), 'The operands of &&', operandAts[i])) return false;
          return true;
        };
      case 'equality': {
        const [left, right] = operands;
        return node.operators[0].operator === '=='
          ? (state) => valuesEqual(left(state), right(state))
          : (state) => !valuesEqual(left(state), right(state));
      }
      case 'relational': {
        const [left, right] = operands;
        const { operator, at } = node.operators[0];
        return (state) => compare(operator, left(state), right(state), at);
      }
      case 'additive': {
        if (node.operators.every((o) => o.operator === '+')) {
          return (state) => {
            let acc = operands[0](state);
            for (let i = 1; i < operands.length; i++) acc = add(acc, operands[i](state), ats[i - 1], state);
            return acc;
          };
        }
        const ops = node.operators.map((o) => o.operator);
        return (state) => {
          let acc = operands[0](state);
          for (let i = 1; i < operands.length; i++) {
            const v = operands[i](state);
            acc = ops[i - 1] === '+' ? add(acc, v, ats[i - 1], state) : arithmetic('-', acc, v, ats[i - 1]);
          }
          return acc;
        };
      }
      case 'multiplicative': {
        const ops = node.operators.map((o) => o.operator as '*' | '/' | '%');
        return (state) => {
          let acc = operands[0](state);
          for (let i = 1; i < operands.length; i++) acc = arithmetic(ops[i - 1], acc, operands[i](state), ats[i - 1]);
          return acc;
        };
      }
    }
  }
}

/** `+`: numbers add; if either side is text the two are concatenated (null as empty); otherwise null propagates. */
function add(a: ExpressionValue, b: ExpressionValue, at: TokenRef, state: EvalState): ExpressionValue {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (!Number.isFinite(sum)) throw overflow(at);
    return sum;
  }
  if (isList(a) || isList(b)) {
    throw typeError(`Cannot use + with a list (${describeValue(isList(a) ? a : b)}); use Join(list, delimiter) to make text of it`, at);
  }
  if (typeof a === 'string' || typeof b === 'string') {
    const left = typeof a === 'string' ? a : itemToText(a);
    const right = typeof b === 'string' ? b : itemToText(b);
    const total = left.length + right.length;
    if (total > EXPRESSION_LIMITS.maxStringLength) throw stringTooLong(at, total);
    charge(state, typeof a === 'string' ? right.length : total, at);
    return left + right;
  }
  if (a === null || b === null) return null;
  throw typeError(`Cannot add ${typeName(a)} and ${typeName(b)}; convert with ToString or FormatDate to join them as text`, at);
}

/** `- * / %` on numbers; null propagates; division by zero is an error rather than a silent null. */
function arithmetic(operator: '-' | '*' | '/' | '%', a: ExpressionValue, b: ExpressionValue, at: TokenRef): ExpressionValue {
  if (typeof a !== 'number' || typeof b !== 'number') {
    if ((a === null || typeof a === 'number') && (b === null || typeof b === 'number')) return null;
    throw typeError(`Cannot use ${operator} with ${describeValue(typeof a === 'number' || a === null ? b : a)}; it needs numbers`, at);
  }
  let result: number;
  switch (operator) {
    case '-':
      result = a - b;
      break;
    case '*':
      result = a * b;
      break;
    case '/':
      if (b === 0) throw expressionError(ExpressionErrorCode.DivisionByZero, 'Division by zero', at, 'evaluate');
      result = a / b;
      break;
    case '%':
      if (b === 0) throw expressionError(ExpressionErrorCode.DivisionByZero, 'Remainder of a division by zero', at, 'evaluate');
      result = a % b;
      break;
  }
  if (!Number.isFinite(result)) throw overflow(at);
  return result + 0; // + 0 turns -0 into 0
}

/** `< <= > >=`: false when either side is null; same-type scalars only. */
function compare(operator: string, a: ExpressionValue, b: ExpressionValue, at: TokenRef): boolean {
  if (a === null || b === null) return false;
  if (isList(a) || isList(b)) throw typeError(`Cannot compare a list with ${operator}; use CollectionContains or Length`, at);
  const order = compareItems(a, b);
  if (order === null) throw typeError(`Cannot compare ${typeName(a)} with ${typeName(b)}; convert one side first (ToInt, ToString…)`, at);
  switch (operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

/** Enforces the size limits on a function result and charges it to the evaluation's work. */
function checkResult(value: ExpressionValue, at: TokenRef, state: EvalState): ExpressionValue {
  if (typeof value === 'string') {
    if (value.length > EXPRESSION_LIMITS.maxStringLength) throw stringTooLong(at, value.length);
    charge(state, value.length, at);
  } else if (isList(value)) {
    if (value.length > EXPRESSION_LIMITS.maxListLength) throw listTooLong(at, value.length);
    charge(state, value.length, at);
  }
  return value;
}

/** The literal value of an argument (a negative number counts), or undefined when it is not constant. */
function constantValue(node: AstNode): ExpressionValue | undefined {
  if (node.kind === 'literal') return node.value;
  if (node.kind === 'unary' && node.operator === '-' && node.operand.kind === 'literal' && typeof node.operand.value === 'number')
    return -node.operand.value;
  return undefined;
}

function compileError(code: ExpressionErrorCode, message: string, at: TokenRef): ExpressionError {
  return expressionError(code, message, at, 'compile');
}

function typeError(message: string, at: TokenRef): ExpressionError {
  return expressionError(ExpressionErrorCode.Type, message, at, 'evaluate');
}

function overflow(at: TokenRef): ExpressionError {
  return expressionError(ExpressionErrorCode.Overflow, 'The result is too large to be a number', at, 'evaluate');
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function unknownFunctionMessage(name: string): string {
  const lower = name.toLowerCase();
  if (lower === 'mv' || lower === 'cs') return `${name} is not a function: read attributes with ${lower}["name"]`;
  let best: string | undefined;
  let bestDistance = 3;
  for (const def of EXPRESSION_FUNCTIONS) {
    for (const candidate of [def.name, ...(def.aliases ?? [])]) {
      const d = editDistance(lower, candidate.toLowerCase());
      if (d < bestDistance) {
        bestDistance = d;
        best = def.name;
      }
    }
  }
  return `Unknown function '${name}'${best ? `; did you mean ${best}?` : ''}`;
}

/** Levenshtein distance, for "did you mean" hints on misspelt function names. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
