// The size of what `wrangler deploy` would upload, measured from its dry run: every module it writes
// (source maps and its README left out, as they are not uploaded as modules), raw and gzip-compressed,
// with the wasm apart. Cloudflare limits a Worker to 3 MB compressed on the free plan, 10 MB on paid.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { ROOT } from '../e2e/harness.mjs';

export const LIMIT_FREE = 3 * 1024 * 1024;
export const LIMIT_PAID = 10 * 1024 * 1024;

/** {modules: [{name, raw, gzip}], raw, gzip, wasm: {raw, gzip}, wranglerSays} for a wrangler configuration. */
export function uploadSize(config, outdir) {
  rmSync(outdir, { recursive: true, force: true });
  const done = spawnSync(join(ROOT, 'node_modules', '.bin', 'wrangler'),
    ['deploy', '--dry-run', '--outdir', outdir, '--config', config], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
        WRANGLER_HIDE_BANNER: 'true',
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_SEND_ERROR_REPORTS: 'false',
        DO_NOT_TRACK: '1',
        NO_COLOR: '1',
      },
    });
  const said = `${done.stdout}\n${done.stderr}`;
  if (done.status !== 0) throw new Error(`wrangler deploy --dry-run failed for ${config}:\n${said}`);
  const modules = readdirSync(outdir, { recursive: true })
    .filter((name) => !name.endsWith('.map') && name !== 'README.md' && statSync(join(outdir, name)).isFile())
    .map((name) => {
      const bytes = readFileSync(join(outdir, name));
      return { name, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    });
  const wasm = modules.filter((m) => m.name.endsWith('.wasm'));
  const sum = (list, field) => list.reduce((total, m) => total + m[field], 0);
  return {
    modules,
    raw: sum(modules, 'raw'),
    gzip: sum(modules, 'gzip'),
    wasm: wasm.length ? { raw: sum(wasm, 'raw'), gzip: sum(wasm, 'gzip') } : null,
    wranglerSays: said.match(/Total Upload:[^\n]*/)?.[0] ?? null,
  };
}

// ---- what the wasm is made of ----
// The upload's wasm has no name section (scripts/build strips it, to keep the upload small); the
// build keeps a copy with names beside it, function for function the same, which this reads.
export const NAMED_WASM = join(ROOT, 'build', 'index_bg.names.wasm');

const STD_CRATES = new Set(['core', 'alloc', 'std', 'compiler_builtins', 'dlmalloc', 'hashbrown']);
// Crates that are one thing to a reader: serde's derive output lives in serde_core's paths, and so on.
const CRATE_ALIASES = { serde_core: 'serde', regex_automata: 'regex', regex_syntax: 'regex' };

/**
 * The crate a function is charged to, from its demangled name: the first crate its path names that
 * is not the standard library (`<serde_json::de::Deserializer<R> as serde::Deserializer>::…` is
 * serde_json's; `core::ptr::drop_in_place::<minijinja::value::Value>` is minijinja's,
 * `<Vec<playbook_runtime::core::event::Event>>::…` ours), else "std". scripts/build asks for Rust's
 * v0 symbol names, which keep the type arguments of generic functions.
 * The async handlers the runtime exports are compiled into wasm-bindgen-futures' closures around
 * them, so those are named apart rather than charged to js_sys.
 */
export function crateOf(name) {
  name = name.replace(/\[[0-9a-f]{5,}\]/g, ''); // v0 names say crate[hash]::…
  if (/^js_sys::futures::future_to_promise::\{|^wasm_bindgen_futures::/.test(name)) {
    return 'async entry points (handlers inlined)';
  }
  for (const [, crate] of name.matchAll(/(?<![\w:])([A-Za-z_]\w*)::/g)) {
    if (!STD_CRATES.has(crate)) return CRATE_ALIASES[crate] ?? crate;
  }
  return 'std';
}

/** The texts the runtime embeds with include_str!, by the label reported for them. */
function embeddedTexts() {
  const texts = [];
  const guides = join(ROOT, 'guides');
  for (const name of readdirSync(guides).filter((n) => n.endsWith('.md')).sort()) {
    texts.push({ group: 'guides (guides/*.md)', name, bytes: readFileSync(join(guides, name)) });
  }
  for (const [group, path] of [
    ['connection catalogue', 'src/core/connection/catalogue.json'],
    ['debug page assets', 'src/api/debug/search.js'],
    ['debug page assets', 'src/api/debug/style.css'],
  ]) {
    texts.push({ group, name: path, bytes: readFileSync(join(ROOT, path)) });
  }
  return texts;
}

/** The sections of a wasm module: [{id, name, start, end}] (custom sections named). */
function sections(wasm) {
  const out = [];
  let p = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = wasm[p++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(byte & 0x80)) return value;
    }
  };
  while (p < wasm.length) {
    const id = wasm[p++];
    const size = leb();
    const end = p + size;
    let name = null;
    if (id === 0) {
      const length = leb();
      name = wasm.subarray(p, p + length).toString('utf8');
    }
    out.push({ id, name, start: p, end, leb: (at) => { p = at; const v = leb(); return [v, p]; } });
    p = end;
  }
  return out;
}

/** The wasm without its name section, every other byte (and so every function index) unchanged. */
export function withoutNames(wasm) {
  const parts = [wasm.subarray(0, 8)];
  let p = 8;
  for (const s of sections(wasm)) {
    // Each section runs from its id byte, just after the previous section's end.
    if (!(s.id === 0 && s.name === 'name')) parts.push(wasm.subarray(p, s.end));
    p = s.end;
  }
  return Buffer.concat(parts);
}

/** Moves build/index_bg.wasm's name section into build/index_bg.names.wasm (scripts/build runs it). */
export function keepNamesApart(dir = join(ROOT, 'build')) {
  const wasm = readFileSync(join(dir, 'index_bg.wasm'));
  if (!sections(wasm).some((s) => s.id === 0 && s.name === 'name')) return; // already apart
  writeFileSync(join(dir, 'index_bg.names.wasm'), wasm);
  writeFileSync(join(dir, 'index_bg.wasm'), withoutNames(wasm));
}

/** Function index → name, from a wasm's name section (a path or the bytes). */
export function functionNames(wasm = NAMED_WASM, all = null, path = wasm) {
  if (typeof wasm === 'string') wasm = readFileSync(wasm);
  all ??= sections(wasm);
  const names = new Map();
  const nameSection = all.find((s) => s.id === 0 && s.name === 'name');
  if (!nameSection) throw new Error(`${path} has no name section: build it with scripts/build`);
  {
    let [, p] = nameSection.leb(nameSection.start);
    p += 4; // "name"
    while (p < nameSection.end) {
      const kind = wasm[p++];
      let size;
      [size, p] = nameSection.leb(p);
      const end = p + size;
      if (kind === 1) {
        let count;
        [count, p] = nameSection.leb(p);
        for (let i = 0; i < count; i++) {
          let index, length;
          [index, p] = nameSection.leb(p);
          [length, p] = nameSection.leb(p);
          names.set(index, wasm.subarray(p, p + length).toString('utf8'));
          p += length;
        }
      }
      p = end;
    }
  }
  return names;
}

/**
 * What the named wasm is made of: code by crate (raw bytes, and each group gzip-compressed alone),
 * the texts embedded with include_str!, the rest of the data, and the other sections.
 */
export function contributors(path = NAMED_WASM) {
  const wasm = readFileSync(path);
  const all = sections(wasm);
  const readVec = (s, each) => {
    let [count, p] = s.leb(s.start);
    for (let i = 0; i < count; i++) p = each(i, p);
  };
  // Imported functions come first in the index space.
  let imported = 0;
  const importSection = all.find((s) => s.id === 2);
  if (importSection) {
    readVec(importSection, (_, p) => {
      let n;
      [n, p] = importSection.leb(p); p += n; // module
      [n, p] = importSection.leb(p); p += n; // field
      const kind = wasm[p++];
      if (kind === 0) { imported++; [, p] = importSection.leb(p); }
      else if (kind === 1) { p++; const [flags, q] = importSection.leb(p); p = q; [, p] = importSection.leb(p); if (flags & 1) [, p] = importSection.leb(p); }
      else if (kind === 2) { const [flags, q] = importSection.leb(p); p = q; [, p] = importSection.leb(p); if (flags & 1) [, p] = importSection.leb(p); }
      else if (kind === 3) { p += 2; }
      else if (kind === 4) { p++; [, p] = importSection.leb(p); }
      return p;
    });
  }
  const names = functionNames(wasm, all, path);
  const crates = new Map();
  const add = (group, bytes) => {
    const entry = crates.get(group) ?? { raw: 0, chunks: [] };
    entry.raw += bytes.length;
    entry.chunks.push(bytes);
    crates.set(group, entry);
  };
  const modules = new Map();
  const code = all.find((s) => s.id === 10);
  readVec(code, (i, p) => {
    const [size, q] = code.leb(p);
    const name = (names.get(imported + i) ?? `function[${imported + i}]`).replace(/::h[0-9a-f]{16}$/, '');
    const crate = crateOf(name);
    add(crate, wasm.subarray(q, q + size));
    if (crate === 'playbook_runtime') {
      // The module of the runtime's own code the function is charged to, two levels deep.
      const module = name.replace(/\[[0-9a-f]{5,}\]/g, '').match(/(?<![\w:])playbook_runtime((?:::[a-z_][a-z0-9_]*){1,2})/)?.[1] ?? '';
      modules.set(module, (modules.get(module) ?? 0) + size);
    }
    return q + size;
  });
  const data = all.find((s) => s.id === 11);
  const dataBytes = data ? wasm.subarray(data.start, data.end) : Buffer.alloc(0);
  const embedded = new Map();
  let embeddedRaw = 0;
  for (const text of embeddedTexts()) {
    if (dataBytes.indexOf(text.bytes) < 0) continue;
    const entry = embedded.get(text.group) ?? { raw: 0, chunks: [] };
    entry.raw += text.bytes.length;
    entry.chunks.push(text.bytes);
    embedded.set(text.group, entry);
    embeddedRaw += text.bytes.length;
  }
  const gz = (chunks) => gzipSync(Buffer.concat(chunks), { level: 9 }).length;
  const rows = [...crates].map(([group, e]) => ({ group, kind: 'code', raw: e.raw, gzip: gz(e.chunks) }));
  for (const [group, e] of embedded) rows.push({ group, kind: 'data', raw: e.raw, gzip: gz(e.chunks) });
  rows.push({
    group: 'other data (strings, tables: Unicode, …)',
    kind: 'data',
    raw: dataBytes.length - embeddedRaw,
    gzip: Math.max(0, gzipSync(dataBytes, { level: 9 }).length - [...embedded.values()].reduce((t, e) => t + gz(e.chunks), 0)),
  });
  const rest = all.filter((s) => s.id !== 10 && s.id !== 11 && !(s.id === 0 && s.name === 'name'));
  rows.push({
    group: 'other sections (imports, exports, tables, …)',
    kind: 'other',
    raw: rest.reduce((t, s) => t + s.end - s.start, 0),
    gzip: gz(rest.map((s) => wasm.subarray(s.start, s.end))),
  });
  rows.sort((a, b) => b.gzip - a.gzip);
  const own = [...modules].map(([module, raw]) => ({ module: `playbook_runtime${module}`, raw })).sort((a, b) => b.raw - a.raw);
  return { rows, own, functions: names.size };
}

const KiB = (n) => `${(n / 1024).toFixed(1)} KiB`;

// `node tests/bench/size.mjs` (or scripts/size): the upload as wrangler would send it, and what the
// wasm is made of. Needs build/ from scripts/build; no network.
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const outdir = mkdtempSync(join(tmpdir(), 'runtime-size-'));
  try {
    const size = uploadSize(join(ROOT, 'wrangler.toml'), outdir);
    console.log(`upload: ${size.gzip} bytes gzip (${KiB(size.gzip)}, ${(size.gzip / 1024 / 1024).toFixed(2)} MiB; `
      + `${(100 * size.gzip / LIMIT_FREE).toFixed(0)}% of the free plan's 3 MiB), ${size.raw} bytes raw`);
    for (const m of size.modules) console.log(`  ${m.name}: ${m.raw} raw, ${m.gzip} gzip`);
    if (size.wranglerSays) console.log(`  wrangler: ${size.wranglerSays}`);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
  const top = Number(process.env.TOP ?? 25);
  const { rows, own } = contributors();
  const total = rows.reduce((t, r) => t + r.gzip, 0);
  console.log(`\nwhat the wasm is made of (each group gzip-compressed alone; shares of their sum, ${KiB(total)}):`);
  console.log(`${'gzip'.padStart(10)} ${'share'.padStart(6)} ${'raw'.padStart(10)}  group`);
  for (const r of rows.slice(0, top)) {
    console.log(`${KiB(r.gzip).padStart(10)} ${`${(100 * r.gzip / total).toFixed(1)}%`.padStart(6)} ${KiB(r.raw).padStart(10)}  ${r.group}${r.kind === 'code' ? '' : ` (${r.kind})`}`);
  }
  if (rows.length > top) console.log(`  … and ${rows.length - top} more (TOP=${rows.length} shows all)`);
  console.log('\nthe runtime\'s own code by module (raw bytes):');
  for (const m of own.slice(0, 12)) console.log(`${KiB(m.raw).padStart(10)}  ${m.module}`);
}
