// Writes docs/expressions.md from the function table (run from the repository root):
//   node -r ./tools/ts-register.js libs/domain/src/expressions/generate-docs.ts
// A dev-time script, not part of the library: it is not exported from index.ts, so the pure domain
// package never loads fs at run time.
// eslint-disable-next-line no-restricted-imports -- the one file here that writes to disk, by design
import { writeFileSync } from 'fs';
import { join } from 'path';
import { EXPRESSION_DOCS_PATH, renderExpressionDocs } from './expression-docs';

const target = join(__dirname, '..', '..', '..', '..', EXPRESSION_DOCS_PATH);
writeFileSync(target, renderExpressionDocs());
console.log(`Wrote ${target}`);
