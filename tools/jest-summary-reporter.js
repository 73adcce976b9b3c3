// Writes jest-<project>.json with the pass/fail counts of one jest run, and the Node.js it ran on, into
// MERIDIAN_TEST_REPORTS (default reports/); tools/test.js adds them up.
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');

function reportsDir() {
  return path.resolve(ROOT, process.env.MERIDIAN_TEST_REPORTS || 'reports');
}

module.exports = class JestSummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const dir = reportsDir();
    fs.mkdirSync(dir, { recursive: true });
    const project = path.relative(ROOT, this.rootDir).replace(/[\\/]/g, '-');
    fs.writeFileSync(
      path.join(dir, `jest-${project}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
        node: process.version,
      }),
    );
  }
};
module.exports.reportsDir = reportsDir;
