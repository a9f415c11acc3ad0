// `wrangler deploy --dry-run` on the repository's own configuration: what a team runs to publish the
// runtime must pass, with every Durable Object class bound and migrated, and fit Cloudflare's limit.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LIMIT_FREE, uploadSize } from '../bench/size.mjs';
import { ROOT } from './harness.mjs';

test('wrangler deploy --dry-run passes and the upload fits the free plan', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'runtime-deploy-'));
  try {
    const size = uploadSize(join(ROOT, 'wrangler.toml'), outdir);
    assert.ok(size.wasm.raw > 0, 'the wasm is uploaded');
    assert.ok(size.gzip < LIMIT_FREE, `the upload is ${size.gzip} bytes compressed, over ${LIMIT_FREE}`);
    const config = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
    for (const cls of ['OrganizationObject', 'PlaybookObject', 'RunObject', 'CatalogObject', 'AccessObject']) {
      assert.match(config, new RegExp(`class_name = "${cls}"`), `${cls} is bound`);
      assert.match(config, new RegExp(`new_sqlite_classes = \\[[^\\]]*"${cls}"`), `${cls} is migrated as SQLite`);
    }
    assert.doesNotMatch(config, /ADMIN_TOKEN\s*=/, 'the operator secret is never a plain variable');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});
