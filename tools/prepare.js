#!/usr/bin/env node
// Installs what is missing and builds the named projects: `node tools/prepare.js @meridian/persistence`.
// For npm scripts whose command must stay free of the checkout's tooling, such as tools/migrate.js, which
// the container image runs as it is.
const { prepare } = require('./lib/setup');

prepare({ build: process.argv.slice(2) });
