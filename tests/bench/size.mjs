// The size of what `wrangler deploy` would upload, measured from its dry run: every module it writes
// (source maps and its README left out, as they are not uploaded as modules), raw and gzip-compressed,
// with the wasm apart. Cloudflare limits a Worker to 3 MB compressed on the free plan, 10 MB on paid.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
