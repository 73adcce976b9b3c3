// eslint-disable-next-line no-restricted-imports -- the drift check reads the committed docs file
import { readFileSync } from 'fs';
import { join } from 'path';
import { EXPRESSION_DOCS_PATH, renderExpressionDocs } from './expression-docs';
import { EXPRESSION_FUNCTIONS, functionSignature } from './expression-functions';

describe('docs/expressions.md', () => {
  const rendered = renderExpressionDocs();

  it('is exactly what the generator produces from the function table (regenerate with generate-docs.ts)', () => {
    const committed = readFileSync(join(__dirname, '..', '..', '..', '..', EXPRESSION_DOCS_PATH), 'utf8');
    expect(committed).toBe(rendered);
  });

  it('documents every function with its signature, null handling and examples', () => {
    for (const def of EXPRESSION_FUNCTIONS) {
      expect(rendered).toContain(`### ${def.name}\n\n\`${functionSignature(def)}\``);
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
