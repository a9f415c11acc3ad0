// Part 6: generation. On a runtime of its own, a generation function's gateway (the OpenAI-compatible
// stand-in of tests/e2e/standin_models.mjs, whose Images API standin_media.mjs answers) misbehaves:
// it answers garbage, a body far larger than the runtime reads (streamed, with no length), an image
// as a url, bytes that are not the image they claim, an error status, and nothing before its
// deadline. Each run must end failed with its own reason and words, and nothing half-kept: the
// run's record names no asset, and the asset its first file would have been kept as (its id is
// seeded by the run, so it can be named before) is not found. A good run before and after the
// faults still makes an image whose bytes match their SHA-256; no 5xx, no panic in the log.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { OPENAI_KEY, startStandin } from '../e2e/standin_models.mjs';
import { panics, start } from './runtime.mjs';
import { api, must, send } from './wire.mjs';

const MODEL = 'openai/gpt-image-2';
const MiB = 1024 * 1024;
// What the runtime reads of a gateway's answer (ANSWER_MAX_BYTES, src/core/generation/wire.rs).
const ANSWER_MAX_BYTES = Math.floor((20 * MiB) / 3) * 4 + 64 * 1024;
const TIMEOUT_SECONDS = 3;

const POSTER = `---
description: Draws a poster from a campaign's title
model: gateway/${MODEL}
input:
  schema: { type: object, properties: { title: { type: string, maxLength: 200 } }, required: [title] }
parameters: { size: 1024x1024 }
---
A poster for the campaign "{{ input.title }}".
`;

const FAULTS = [
  { name: 'garbage', script: { garbage: true }, reason: 'provider_error', words: /cannot read: its body is not JSON/ },
  { name: 'huge body', script: { huge_bytes: ANSWER_MAX_BYTES + 12 * MiB }, reason: 'provider_error', words: new RegExp(`answered more than ${ANSWER_MAX_BYTES} bytes, the most the runtime reads`) },
  { name: 'a url, not bytes', script: { url_only: true }, reason: 'provider_error', words: /as a url rather than as b64_json/ },
  { name: 'bytes that lie', script: { lie: true }, reason: 'provider_error', words: /holds no PNG, JPEG or WEBP image/ },
  { name: 'error status', script: { status: 503, error: 'server_error', message: 'Overloaded' }, reason: 'provider_error', words: /answered 503 server_error: Overloaded/ },
  { name: 'no answer in time', script: { delay_ms: (TIMEOUT_SECONDS + 2) * 1000 }, reason: 'provider_timeout', words: new RegExp(`gave no answer within ${TIMEOUT_SECONDS} seconds`) },
];

/** The id `ops::run::generation` keeps a run's first file under: `ast_` and 16 base32 characters of sha256(seed). */
function seededAssetId(org, playbook, runId) {
  const digest = createHash('sha256').update(`${org}/${playbook}/${runId}/0`).digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `ast_${[...digest.subarray(0, 16)].map((b) => alphabet[b & 31]).join('')}`;
}

async function script(standin, reply) {
  const res = await fetch(`${standin.url}/__script`, { method: 'POST', body: JSON.stringify({ model: MODEL, ...reply }) });
  if (res.status !== 200) throw new Error(`script: ${res.status}`);
}

/** One good run: it succeeds, and the bytes at its asset's url match the SHA-256 it names. */
async function goodRun(base, client, playbook, runId) {
  const run = must(await client.post('/definitions/generation/poster/run', { input: { title: 'Good' }, run_id: runId }), 'good run');
  const asset = run.output?.assets?.[0];
  if (run.status !== 'succeeded' || !asset) return { ok: false, detail: JSON.stringify(run).slice(0, 300) };
  const view = must(await client.get(`/assets/${asset.asset_id}`), 'get_asset');
  const res = await fetch(new URL(view.url, base));
  const bytes = Buffer.from(await res.arrayBuffer());
  const sha = createHash('sha256').update(bytes).digest('hex');
  // The id is the one a faulty run's check looks for, so a 404 there means no record, not a wrong guess.
  const seeded = asset.asset_id === seededAssetId('local', playbook, runId);
  return {
    ok: res.status === 200 && sha === asset.sha256 && bytes.length === asset.size && seeded,
    detail: `${res.status} ${sha}; ${asset.asset_id} ${seeded ? 'is' : 'is not'} the seeded id`,
  };
}

export async function generation({ say }) {
  const stateDir = mkdtempSync(join(tmpdir(), 'faults-generation-'));
  const logs = [];
  let rt = null;
  const standin = await startStandin('openai', OPENAI_KEY);
  const started = Date.now();
  try {
    rt = await start(stateDir, logs, {
      OPENAI_API_KEY: OPENAI_KEY,
      MODEL_GATEWAYS: JSON.stringify({ gateway: { base_url: `${standin.url}/v1`, key: 'OPENAI_API_KEY', timeout_seconds: TIMEOUT_SECONDS } }),
    });
    const made = must(await api(rt.url).post('', { name: 'faults generation' }), 'create_playbook');
    const playbook = made.id;
    const client = api(rt.url, playbook);
    must(await client.post('/definitions/generation', {
      name: 'poster', source: POSTER,
      overview: 'Draws a poster for a campaign from its title through the gateway, kept as an asset.',
      diagram: 'flowchart LR\n  A[title] --> B[model draws] --> C[asset]',
    }), 'create generation/poster');

    const before = await goodRun(rt.url, client, playbook, 'good-before');
    const rows = [];
    const serverErrors = [];
    for (const fault of FAULTS) {
      await script(standin, fault.script);
      const runId = `fault-${fault.name.replace(/[^a-z]+/g, '-')}`;
      const t0 = Date.now();
      const answer = await send(`${rt.url}/v1/orgs/local/playbooks/${playbook}/definitions/generation/poster/run`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: { title: fault.name }, run_id: runId }), timeoutMs: 120_000,
      });
      if (answer.status >= 500) serverErrors.push(`${fault.name}: ${answer.status} ${answer.text.slice(0, 200)}`);
      const run = answer.json ?? {};
      const read = must(await client.get(`/runs/${runId}`), `get_run ${runId}`);
      const orphan = await client.get(`/assets/${seededAssetId('local', playbook, runId)}`);
      const row = {
        fault: fault.name,
        status: run.status,
        reason: run.error?.reason,
        detail: run.error?.detail ?? answer.text.slice(0, 200),
        seconds: (Date.now() - t0) / 1000,
        assetsNamed: read.record?.assets?.length ?? null,
        assetFound: orphan.status,
      };
      row.ok = row.status === 'failed' && row.reason === fault.reason && fault.words.test(row.detail ?? '')
        && row.assetsNamed === 0 && row.assetFound === 404;
      rows.push(row);
      say(`generation: ${fault.name}: ${row.status} ${row.reason} in ${row.seconds.toFixed(1)} s`);
    }
    await script(standin, {});
    const after = await goodRun(rt.url, client, playbook, 'good-after');
    await rt.stop();
    rt = null;
    const panicked = panics(logs);
    const check = (name, pass, detail = '') => ({ part: 'generation', name, ok: Boolean(pass), detail });
    const checks = [
      check('a good run makes an image whose bytes match their SHA-256, kept under the id its run seeds, before the faults', before.ok, before.detail),
      ...rows.map((r) => check(
        `a gateway that answers ${r.fault} fails the run as ${FAULTS.find((f) => f.name === r.fault).reason}, and no asset is kept`,
        r.ok, `${r.status} ${r.reason}: ${r.detail}; assets named ${r.assetsNamed}; its seeded asset answered ${r.assetFound}`,
      )),
      check('a good run still makes an image after the faults', after.ok, after.detail),
      check('no 5xx answer', serverErrors.length === 0, serverErrors.join('; ')),
      check('no panic in the runtime log', panicked.length === 0, panicked.slice(0, 5).join('; ')),
    ];
    return { stats: { rows, seconds: (Date.now() - started) / 1000, panics: panicked.length }, checks };
  } finally {
    await rt?.stop();
    await standin.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
