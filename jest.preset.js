// Shared jest configuration: TypeScript through swc, ESM-only packages transformed to CommonJS,
// workspace packages resolved to their sources so tests never run against a stale build.
const fs = require('fs');
const path = require('path');

const esmOnly = ['openid-client', 'jose', 'oauth4webapi', 'oidc-provider', 'kubernetes-models', '@kubernetes-models', 'quick-lru'];
const swcrc = JSON.parse(fs.readFileSync(path.join(__dirname, '.swcrc'), 'utf8'));

module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/{src,test}/**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
    '^.+\\.m?js$': [
      '@swc/jest',
      { swcrc: false, jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm|${esmOnly.join('|')})/)`],
  moduleNameMapper: {
    '^@meridian/(domain|platform|persistence|jobs|application|connectors|testing|api-client)$': path.join(
      __dirname,
      'libs/$1/src/index.ts',
    ),
  },
  reporters: ['default', path.join(__dirname, 'tools/jest-summary-reporter.js')],
  testTimeout: 60000,
};
