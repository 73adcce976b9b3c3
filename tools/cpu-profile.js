// Summarises a V8 CPU profile (.cpuprofile, e.g. from MERIDIAN_BENCH_PROFILE): where the time went, by
// function (self time), by source file, and the project's functions with what they call (inclusive time).
//   node tools/cpu-profile.js <file.cpuprofile> [top=30]
const fs = require('fs');
const path = require('path');

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tools/cpu-profile.js <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);

const shortUrl = (url) => {
  if (!url) return '';
  const clean = url.replace(/^file:\/\//, '');
  const at = clean.lastIndexOf('node_modules/');
  return at >= 0 ? clean.slice(at + 'node_modules/'.length) : path.relative(process.cwd(), clean);
};
const place = (id) => {
  const { callFrame } = nodes.get(id);
  const where = shortUrl(callFrame.url);
  return { where, key: `${callFrame.functionName || '(anonymous)'}  ${where}${where ? `:${callFrame.lineNumber + 1}` : ''}` };
};

const selfMicros = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
const add = (map, key, micros) => map.set(key, (map.get(key) ?? 0) + micros);

const byFunction = new Map();
const byFile = new Map();
const inclusive = new Map();
for (const [id, micros] of selfMicros) {
  const { where, key } = place(id);
  add(byFunction, key, micros);
  add(byFile, where || nodes.get(id).callFrame.functionName, micros);
  // Each sample counts once for every distinct project function on its stack.
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const p = place(at);
    if (/^(libs|apps)\//.test(p.where)) seen.add(p.key);
  }
  for (const k of seen) add(inclusive, k, micros);
}

const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(micros / 1e6).toFixed(2).padStart(8)} s ${((100 * micros) / total).toFixed(1).padStart(5)} %  ${key}`);
  }
};
console.log(`${(total / 1e6).toFixed(2)} s sampled`);
print('self time by function', byFunction);
print('self time by file', byFile);
print('inclusive time of the project functions', inclusive);
