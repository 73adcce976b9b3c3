// Lets plain `node` run the TypeScript sources (benchmarks, tools): compiles .ts files with swc on
// require and resolves @meridian/* workspace packages to their sources.
// Usage: node -r ./tools/ts-register.js bench/expressions.bench.ts
const fs = require('fs');
const path = require('path');
const Module = require('module');
const { transformSync } = require('@swc/core');

const root = path.join(__dirname, '..');
const swcrc = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
const libs = new Set(['domain', 'platform', 'persistence', 'jobs', 'application', 'connectors', 'testing']);

const originalResolve = Module._resolveFilename;
Module._resolveFilename = function resolve(request, parent, ...rest) {
  const m = /^@meridian\/([a-z-]+)$/.exec(request);
  if (m && libs.has(m[1])) request = path.join(root, 'libs', m[1], 'src', 'index.ts');
  return originalResolve.call(this, request, parent, ...rest);
};

require.extensions['.ts'] = function compile(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, { ...swcrc, swcrc: false, filename, sourceMaps: 'inline' });
  module._compile(code, filename);
};
