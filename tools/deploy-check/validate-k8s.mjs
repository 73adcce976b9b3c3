#!/usr/bin/env node
// Validates every document of every k8s/*.yaml against the Kubernetes OpenAPI schemas bundled in
// kubernetes-models (offline; STACK.md §12). Catches wrong types and missing required fields, not
// unknown fields.
//
//   node tools/deploy-check/validate-k8s.mjs [--json] [dir]     (dir defaults to <repo>/k8s)
//
// Plain Node ESM on purpose: kubernetes-models and its helpers are ESM-only with "import"-only
// export maps, which jest's CommonJS resolver cannot load. The jest suite runs this script.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const args = process.argv.slice(2);
const json = args.includes('--json');
const dir = resolve(args.find((a) => !a.startsWith('--')) ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'k8s'));

const results = [];
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
  .sort();
for (const file of files) {
  const docs = parseAllDocuments(readFileSync(join(dir, file), 'utf8'));
  for (const [index, doc] of docs.entries()) {
    const entry = { file, index, apiVersion: null, kind: null, name: null, ok: false, error: null };
    results.push(entry);
    try {
      if (doc.errors.length) throw new Error(`YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      const o = doc.toJS();
      if (!o || typeof o !== 'object') throw new Error('empty document');
      Object.assign(entry, { apiVersion: o.apiVersion ?? null, kind: o.kind ?? null, name: o.metadata?.name ?? null });
      if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') throw new Error('apiVersion and kind are required');
      const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
      let Model;
      try {
        ({ [o.kind]: Model } = await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${o.kind}`));
      } catch {
        throw new Error(`unknown apiVersion/kind ${o.apiVersion} ${o.kind}`);
      }
      if (!Model) throw new Error(`unknown kind ${o.kind} in ${o.apiVersion}`);
      new Model(o).validate();
      entry.ok = true;
    } catch (e) {
      entry.error = e instanceof Error ? e.message : String(e);
    }
  }
}

if (json) {
  process.stdout.write(`${JSON.stringify(results)}\n`);
} else {
  for (const r of results) {
    const what = `${r.file}#${r.index} ${r.kind ?? '?'}/${r.name ?? '?'}`;
    process.stdout.write(r.ok ? `ok      ${what}\n` : `INVALID ${what}: ${r.error}\n`);
  }
}
process.exit(results.length > 0 && results.every((r) => r.ok) ? 0 : 1);
