// Writes docs/expressions.md from the domain's function table (run from the repository root):
//   node -r ./tools/ts-register.js tools/expression-docs/src/generate.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPRESSION_DOCS_PATH, renderExpressionDocs } from './render-expression-docs';

const target = join(__dirname, '..', '..', '..', EXPRESSION_DOCS_PATH);
writeFileSync(target, renderExpressionDocs());
console.log(`Wrote ${target}`);
