#!/usr/bin/env node
// `npm run lint`: installs what is missing, lints every project (including the library dependency
// rules) and checks the formatting of every TypeScript and JavaScript file.
const { prepare, nx, run } = require('./lib/setup');

const pnpm = prepare();
const lint = nx(pnpm, ['run-many', '-t', 'lint', '--output-style=stream'], { allowFailure: true });
const format = run(pnpm, ['exec', 'prettier', '--check', '**/*.{ts,js,cjs,mjs}'], { allowFailure: true });
process.exit(lint || format ? 1 : 0);
