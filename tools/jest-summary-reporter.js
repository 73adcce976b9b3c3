// Writes reports/jest-<project>.json with the pass/fail counts of one jest run; tools/test.js adds them up.
const fs = require('fs');
const path = require('path');

module.exports = class JestSummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const dir = path.join(__dirname, '..', 'reports');
    fs.mkdirSync(dir, { recursive: true });
    const project = path.relative(path.join(__dirname, '..'), this.rootDir).replace(/[\\/]/g, '-');
    fs.writeFileSync(
      path.join(dir, `jest-${project}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
      }),
    );
  }
};
