#!/usr/bin/env node
// Turns the served OpenAPI document into the two committed files of this library: `openapi.json` (keys
// of the maps in a stable order, formatted) and `src/schema.ts` (types from openapi-typescript).
//
//   node libs/api-client/codegen.js <document.json> [--out <dir>]
//
// writes `<dir>/openapi.json` and `<dir>/src/schema.ts` (dir defaults to this library). `npm run
// api-client` fetches the document from a running web app and calls this; the drift test calls it with a
// temporary directory and compares the result with the committed files. Plain CommonJS on purpose: both
// openapi-typescript and prettier load through dynamic imports that jest cannot run in-process.
const fs = require('node:fs');
const path = require('node:path');

const LIBRARY = __dirname;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const HEADER = '// Generated from openapi.json by openapi-typescript (`npm run api-client`); do not edit by hand.\n';

/** A copy of `object` whose keys are sorted (by `compare`, or alphabetically). */
function sortKeys(object, compare) {
  if (!object || typeof object !== 'object' || Array.isArray(object)) return object;
  const keys = Object.keys(object).sort(compare);
  return Object.fromEntries(keys.map((k) => [k, object[k]]));
}

const byMethod = (a, b) => {
  const i = HTTP_METHODS.indexOf(a);
  const j = HTTP_METHODS.indexOf(b);
  return (i < 0 ? HTTP_METHODS.length : i) - (j < 0 ? HTTP_METHODS.length : j) || a.localeCompare(b);
};

/**
 * The document with every map whose order carries no meaning (paths, methods, responses, components) in
 * a stable order, so a route or schema moving between modules changes nothing in the committed file.
 * Properties, parameters and enums keep the order the API declares them in.
 */
function normaliseDocument(document) {
  const doc = JSON.parse(JSON.stringify(document));
  const paths = {};
  for (const [route, item] of Object.entries(sortKeys(doc.paths ?? {}))) {
    const sorted = sortKeys(item, byMethod);
    for (const method of HTTP_METHODS) {
      if (sorted[method]?.responses) sorted[method].responses = sortKeys(sorted[method].responses);
    }
    paths[route] = sorted;
  }
  doc.paths = paths;
  if (doc.components) {
    doc.components = sortKeys(doc.components);
    for (const kind of Object.keys(doc.components)) doc.components[kind] = sortKeys(doc.components[kind]);
  }
  return doc;
}

async function format(text, filepath, parser) {
  const prettier = require('prettier');
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  return prettier.format(text, { ...options, filepath, parser });
}

/** The committed form of the document: normalised and formatted. */
async function renderDocument(document) {
  return format(JSON.stringify(normaliseDocument(document)), path.join(LIBRARY, 'openapi.json'), 'json');
}

/** `src/schema.ts` for the document: openapi-typescript's types, formatted like the rest of the code. */
async function renderSchema(document) {
  const { default: openapiTS, astToString } = require('openapi-typescript');
  // A default makes a field optional to send, so it must not make it required in the types (request bodies share the
  // schemas); an object without declared properties (details, settings) holds anything, not nothing.
  const ast = await openapiTS(normaliseDocument(document), { silent: true, defaultNonNullable: false, emptyObjectsUnknown: true });
  return format(HEADER + astToString(ast), path.join(LIBRARY, 'src', 'schema.ts'), 'typescript');
}

/** Writes `openapi.json` and `src/schema.ts` under `out`; returns each file and whether its content changed. */
async function writeClientSources(document, out = LIBRARY) {
  const files = {
    [path.join(out, 'openapi.json')]: await renderDocument(document),
    [path.join(out, 'src', 'schema.ts')]: await renderSchema(document),
  };
  return Object.entries(files).map(([file, text]) => {
    const changed = !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text;
    if (changed) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
    return { file, changed };
  });
}

module.exports = { normaliseDocument, renderDocument, renderSchema, writeClientSources };

if (require.main === module) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  const out = outAt >= 0 ? path.resolve(args.splice(outAt, 2)[1]) : LIBRARY;
  if (args.length !== 1) {
    process.stderr.write('Usage: node libs/api-client/codegen.js <document.json> [--out <dir>]\n');
    process.exit(2);
  }
  writeClientSources(JSON.parse(fs.readFileSync(args[0], 'utf8')), out).then(
    (files) =>
      files.forEach((f) => process.stdout.write(`${path.relative(process.cwd(), f.file)}: ${f.changed ? 'written' : 'unchanged'}\n`)),
    (e) => {
      process.stderr.write(`${e.stack || e.message}\n`);
      process.exit(1);
    },
  );
}
