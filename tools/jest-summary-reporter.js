// Writes jest-<project>.json with the pass/fail counts of one jest run, the Node.js it ran on and the names of
// the tests that failed, into MERIDIAN_TEST_REPORTS (default reports/); tools/test.js adds them up and names
// the failures again at the end of its output, where a long log's tail shows them.
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');

function reportsDir() {
  return path.resolve(ROOT, process.env.MERIDIAN_TEST_REPORTS || 'reports');
}

/** The first non-empty line of a failure message, without terminal colours, at most 300 characters. */
function firstLine(message) {
  const line = String(message ?? '')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean);
  return (line ?? 'failed').slice(0, 300);
}

module.exports = class JestSummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const failures = [];
    for (const suite of results.testResults) {
      const file = path.relative(ROOT, suite.testFilePath);
      if (suite.testExecError) failures.push(`${file}: ${firstLine(suite.testExecError.message)}`);
      for (const test of suite.testResults) {
        if (test.status === 'failed') failures.push(`${file} › ${test.fullName}: ${firstLine(test.failureMessages[0])}`);
      }
    }
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
        failures,
      }),
    );
  }
};
module.exports.reportsDir = reportsDir;
