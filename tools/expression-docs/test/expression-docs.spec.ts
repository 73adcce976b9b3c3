import { listExpressionFunctions } from '@meridian/domain';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPRESSION_DOCS_PATH, renderExpressionDocs } from '../src/render-expression-docs';

describe('docs/expressions.md', () => {
  const rendered = renderExpressionDocs();

  it('is exactly what the generator produces from the function table (regenerate with tools/expression-docs/src/generate.ts)', () => {
    const committed = readFileSync(join(__dirname, '..', '..', '..', EXPRESSION_DOCS_PATH), 'utf8');
    expect(committed).toBe(rendered);
  });

  it('documents every function with its signature, null handling and examples', () => {
    for (const def of listExpressionFunctions()) {
      expect(rendered).toContain(`### ${def.name}\n\n\`${def.signature}\``);
      expect(rendered).toContain(`**Null handling:** ${def.nulls}`);
      for (const example of def.examples) expect(rendered).toContain(example.expression.replace(/\|/g, '\\|'));
    }
  });

  it('explains syntax, operators, precedence, null semantics, errors and limits', () => {
    for (const heading of [
      '## Syntax',
      '### Operators and precedence',
      '## Operator semantics and null',
      '## Errors',
      '## Limits',
      '## Safety',
      '### Date format tokens',
    ]) {
      expect(rendered).toContain(`\n${heading}\n`);
    }
    expect(rendered).toContain('| `maxLength` | 10,000 |');
  });
});
