// Lint rules for every project. The `boundaries` table is the dependency direction of
// ARCHITECTURE.md §1: a project may import only the workspace packages listed for it.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

const workspace = [
  'domain',
  'platform',
  'persistence',
  'jobs',
  'connectors',
  'application',
  'testing',
  'api-client',
  'web',
  'worker',
  'scheduler',
];
const boundaries = {
  'libs/domain': {
    allow: [],
    forbidPackages: [
      '@nestjs/*',
      'typeorm',
      'pg',
      'bullmq',
      'ioredis',
      'winston',
      'express',
      'fs',
      'node:fs',
      'child_process',
      'node:child_process',
      'net',
      'node:net',
      'http',
      'node:http',
    ],
  },
  'libs/platform': { allow: ['domain'] },
  'libs/persistence': { allow: ['domain'] },
  'libs/jobs': { allow: ['domain'] },
  'libs/connectors': { allow: ['domain'] },
  'libs/application': { allow: ['domain', 'platform', 'persistence', 'jobs', 'connectors'] },
  'libs/api-client': { allow: [] },
  'libs/testing': { allow: ['domain', 'platform', 'persistence', 'jobs', 'connectors', 'application'] },
  'apps/web': {
    allow: ['domain', 'platform', 'persistence', 'jobs', 'connectors', 'application'],
    testsAlsoAllow: ['testing', 'api-client'],
  },
  'apps/worker': { allow: ['domain', 'platform', 'persistence', 'jobs', 'connectors', 'application'], testsAlsoAllow: ['testing'] },
  'apps/scheduler': { allow: ['domain', 'platform', 'persistence', 'jobs', 'connectors', 'application'], testsAlsoAllow: ['testing'] },
};

// The test harness (@meridian/testing) is for an app's test/ folder only: its source must never load it.
function boundaryConfig(files, dir, allow, forbidPackages) {
  const forbidden = workspace.filter((p) => !allow.includes(p) && `libs/${p}` !== dir && `apps/${p}` !== dir);
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: forbidden.map((p) => `@meridian/${p}`),
              message: `${files[0].replace('/**/*.ts', '')} may import only: ${allow.join(', ') || 'nothing of ours'} (ARCHITECTURE.md §1).`,
            },
            {
              group: ['../../libs/*', '../../../libs/*', '../../apps/*', '../../../apps/*', '**/libs/*/src/*', '**/apps/*/src/*'],
              message: 'Import other projects through their package name (@meridian/...).',
            },
            ...(forbidPackages
              ? [{ group: forbidPackages, message: 'The domain library is pure TypeScript: no framework, database or I/O.' }]
              : []),
          ],
        },
      ],
    },
  };
}

const boundaryConfigs = Object.entries(boundaries).flatMap(([dir, rule]) => [
  boundaryConfig([`${dir}/**/*.ts`], dir, rule.allow, rule.forbidPackages),
  ...(rule.testsAlsoAllow ? [boundaryConfig([`${dir}/test/**/*.ts`], dir, [...rule.allow, ...rule.testsAlsoAllow])] : []),
]);

module.exports = tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'apps/console/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-namespace': 'off',
      'no-console': 'off',
    },
  },
  ...boundaryConfigs,
);
