// Expression language benchmark (issue: ≥ 1,000,000 evaluations/s per core for the DN mapping on
// pre-compiled code). Run with `npm run bench -- expressions`. Prints figures; asserts nothing, since
// timings depend on the machine.
import { AttributeValues, compileExpression, CompiledExpression, ExpressionCache, ExpressionContext } from '@meridian/domain';

const DN = '"uid=" + Lower(cs["givenName"]) + "." + Lower(cs["sn"]) + ",ou=people,dc=example,dc=org"';
const IIF = 'IIF(Eq(mv["Status"], "Archived"), DisableUser(Coalesce(cs["userAccountControl"], 512)), EnableUser(512))';
const TARGET = 1_000_000;
const OBJECTS = 1_000;
const ROUNDS = 5;
const ROUND_SIZE = 2_000_000;

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Frances', 'Niklaus'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Hamilton', 'Thompson', 'Allen', 'Wirth'];
const STATUS = ['Active', 'Active', 'Active', 'Archived', 'Established'];

/** Deterministic HR-like objects, as the sync engine would hand them over (plain records). */
function objects(): ExpressionContext[] {
  return Array.from({ length: OBJECTS }, (_, i) => ({
    mv: {
      'Display Name': `${FIRST[i % 10]} ${LAST[(i * 7) % 10]}`,
      Status: STATUS[i % STATUS.length],
      'Employee ID': `EMP${String(i + 1).padStart(6, '0')}`,
    },
    cs: {
      givenName: FIRST[i % 10],
      sn: `${LAST[(i * 7) % 10]}${i}`,
      mail: `user${i}@example.org`,
      department: `Dept ${i % 12}`,
      title: 'Engineer',
      ...(i % 4 === 0 ? {} : { userAccountControl: i % 3 === 0 ? 514 : 512 }),
    },
  }));
}

let peakRss = 0;
let peakHeap = 0;
function sampleMemory(): void {
  const { rss, heapUsed } = process.memoryUsage();
  peakRss = Math.max(peakRss, rss);
  peakHeap = Math.max(peakHeap, heapUsed);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const rate = (n: number) => Math.round(n).toLocaleString('en-US');

function compiled(text: string): CompiledExpression {
  const result = compileExpression(text);
  if (!result.ok) throw result.error;
  return result.expression;
}

/** Evaluations per second over several rounds after a warm-up; returns the median round. */
function measure(label: string, expression: CompiledExpression, contexts: readonly ExpressionContext[]): number {
  let sink = 0;
  const runRound = (n: number) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const value = expression.evaluate(contexts[i % contexts.length]);
      sink += typeof value === 'string' ? value.length : (value as number);
    }
    return Number(process.hrtime.bigint() - start) / 1e9;
  };
  runRound(ROUND_SIZE / 2); // warm-up: let V8 optimise the closures
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    rates.push(ROUND_SIZE / runRound(ROUND_SIZE));
    sampleMemory();
  }
  rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)];
  console.log(
    `${label.padEnd(44)} median ${rate(median).padStart(11)} evals/s   best ${rate(rates[rates.length - 1]).padStart(11)}   worst ${rate(rates[0]).padStart(11)}`,
  );
  if (sink === 42) console.log('');
  return median;
}

function measureCompile(): void {
  const texts = Array.from({ length: 2_000 }, (_, i) => `${DN} + "${i}"`);
  let start = process.hrtime.bigint();
  for (const text of texts) compiled(text);
  let seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`${'compile (uncached, DN expression)'.padEnd(44)} ${rate(texts.length / seconds).padStart(18)} compiles/s`);
  const cache = new ExpressionCache(100);
  cache.compile(DN);
  const hits = 1_000_000;
  start = process.hrtime.bigint();
  for (let i = 0; i < hits; i++) cache.compile(DN);
  seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`${'ExpressionCache hit'.padEnd(44)} ${rate(hits / seconds).padStart(18)} lookups/s`);
}

function main(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  sampleMemory();
  const baseline = process.memoryUsage();
  console.log(
    `Node ${process.version}, ${OBJECTS.toLocaleString('en-US')} distinct objects, ${ROUNDS} rounds of ${ROUND_SIZE.toLocaleString('en-US')} evaluations after warm-up, one core`,
  );
  console.log(`DN:  ${DN}`);
  console.log(`IIF: ${IIF}\n`);

  const contexts = objects();
  const prepared = contexts.map((c) => ({
    mv: AttributeValues.from(c.mv as Record<string, unknown>),
    cs: AttributeValues.from(c.cs as Record<string, unknown>),
  }));
  const dn = compiled(DN);
  const iif = compiled(IIF);
  console.log(`sample: ${String(dn.evaluate(contexts[0]))} | ${String(iif.evaluate(contexts[3]))}\n`);

  const dnRate = measure('DN expression, plain records', dn, contexts);
  measure('DN expression, AttributeValues', dn, prepared);
  const iifRate = measure('IIF expression, plain records', iif, contexts);
  measure('IIF expression, AttributeValues', iif, prepared);
  console.log(
    '(all variants share one process: later ones run on closures V8 has already seen with both context shapes, so compare variants only roughly)\n',
  );
  measureCompile();

  sampleMemory();
  console.log(
    `\nmemory: baseline rss ${mb(baseline.rss)}, heapUsed ${mb(baseline.heapUsed)}; peak rss ${mb(peakRss)}, peak heapUsed ${mb(peakHeap)}`,
  );
  console.log(
    `target ≥ ${rate(TARGET)} evals/s for the DN expression: ${dnRate >= TARGET ? 'met' : 'NOT met'} (${rate(dnRate)}); IIF expression: ${rate(iifRate)}`,
  );
}

main();
