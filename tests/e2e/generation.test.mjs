// Generation functions through the runtime's real gateway code, pointed at the OpenAI-compatible
// stand-in run.mjs started (standin_models.mjs, whose Images and Audio APIs standin_media.mjs
// answers with real PNG and MP3 bytes) through the gateway `hasty` of MODEL_GATEWAYS: a run makes
// an image, get_asset reads it and its bytes match their SHA-256; an asset given as a reference goes
// to images/edits as a file; speech is kept as MP3; a retired model is refused at save naming its
// replacement; a gateway that answers garbage or an error fails the run with its reason; the
// summary of list_generation_models; and /directory hides every piece of it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolFailure, assertToolSuccess, runtimeUrl, uniqueName } from './helpers.mjs';
import { OPENAI_KEY } from './standin_models.mjs';

const OPENAI = process.env.STANDIN_OPENAI_URL;

async function script(model, reply) {
  const res = await fetch(`${OPENAI}/__script`, { method: 'POST', body: JSON.stringify({ model, ...reply }) });
  assert.equal(res.status, 200);
}
const received = (model) => fetch(`${OPENAI}/__requests?model=${encodeURIComponent(model)}`).then((r) => r.json());
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// Each test names a model of its own through a model the catalogue holds, so the stand-in's scripts
// and records of one test never meet another's: the stand-in keys them by model.
const poster = (model) => `---
description: Draws a poster from a campaign's title, with a logo where one is given
model: hasty/${model}
input:
  schema:
    type: object
    properties:
      title: { type: string, maxLength: 200 }
      logo: { type: string, description: The asset id of the brand's logo }
    required: [title]
parameters:
  size: 1024x1536
  quality: high
references:
  logo: { media_types: [image/png] }
---
A portrait poster for the campaign "{{ input.title }}".
`;
const SPEECH = `---
description: Reads a short announcement aloud
model: hasty/openai/tts-1
input:
  schema: { type: object, properties: { text: { type: string, maxLength: 400 } }, required: [text] }
parameters: { voice: nova }
---
{{ input.text }}
`;
const OVERVIEW = 'Makes a campaign asset from its input through the operator gateway, and answers it as an asset.';
const DIAGRAM = 'flowchart LR\n  A[input] --> B[model makes it] --> C[asset]';

describe('generation functions through the gateway', () => {
  let client;
  let directory;
  let playbook;
  const call = (name, args) => client.callTool({ name, arguments: { playbook, ...args } });
  const define = async (name, source) => assertToolSuccess(await call('create_definition', {
    type: 'generation', name, source, overview: OVERVIEW, diagram: DIAGRAM,
  }));
  const run = (name, input) => call('run_definition', { type: 'generation', name, input });
  const bytesOf = async (assetId) => {
    const asset = assertToolSuccess(await call('get_asset', { asset_id: assetId }));
    const url = new URL(asset.url, runtimeUrl());
    const res = await fetch(url);
    assert.equal(res.status, 200, `${url}`);
    assert.equal(res.headers.get('content-type'), asset.media_type);
    return { asset, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  before(async () => {
    assert.ok(OPENAI, 'run through tests/e2e/run.mjs, which starts the stand-ins');
    client = new Client({ name: 'generation-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    directory = new Client({ name: 'generation-directory-test', version: '1.0.0' });
    await directory.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/directory`)));
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('generation') } })).id;
  });
  after(async () => {
    await client?.close();
    await directory?.close();
  });

  test('list_generation_models names the catalogue through the gateways, in the spec\'s words', async () => {
    const result = await client.callTool({ name: 'list_generation_models', arguments: {} });
    const listed = assertToolSuccess(result);
    assert.deepEqual(listed.gateways, ['hasty', 'offline']);
    assert.deepEqual(listed.data.map((m) => m.model), [
      'openai/dall-e-3', 'openai/gpt-4o-mini-tts', 'openai/gpt-image-2', 'openai/gpt-image-2.6-flare', 'openai/tts-1', 'openai/tts-1-hd',
    ]);
    assert.equal(result.content[0].text, 'A generation function can name 5 models through hasty and offline: it makes an image with gpt-image-2 or gpt-image-2.6-flare and audio with gpt-4o-mini-tts, tts-1, or tts-1-hd. dall-e-3 was retired on 2026-05-12; gpt-image-2 replaces it.');
  });

  test('a run makes an image, get_asset reads it, and its bytes match their SHA-256', async () => {
    await define('poster', poster('openai/gpt-image-2'));
    const done = assertToolSuccess(await run('poster', { title: 'Autumn webinar' }));
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    const [made] = done.output.assets;
    assert.equal(made.media_type, 'image/png');
    assert.match(made.asset_id, /^ast_/);

    const { asset, bytes } = await bytesOf(made.asset_id);
    assert.equal(bytes.length, made.size);
    assert.equal(sha256(bytes), made.sha256);
    assert.equal(asset.sha256, made.sha256);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(asset.made_by.run_id, done.run_id);

    const sent = (await received('openai/gpt-image-2')).at(-1);
    assert.equal(sent.path, '/v1/images/generations');
    assert.equal(sent.headers.authorization, `Bearer ${OPENAI_KEY}`);
    assert.deepEqual(
      { model: sent.body.model, prompt: sent.body.prompt, size: sent.body.size, quality: sent.body.quality, n: sent.body.n },
      { model: 'openai/gpt-image-2', prompt: 'A portrait poster for the campaign "Autumn webinar".', size: '1024x1536', quality: 'high', n: 1 },
    );

    const events = assertToolSuccess(await call('list_playbook_events', { run_id: done.run_id }));
    assert.deepEqual(events.events.map((e) => e.kind), ['run_started', 'model_answered', 'run_succeeded']);
    assert.equal(events.events[1].data.model, 'hasty/openai/gpt-image-2');
    assert.equal(events.events[1].data.assets[0].asset_id, made.asset_id);
    assert.ok(!JSON.stringify(events).includes(OPENAI_KEY), 'no key in the history');
    const read = assertToolSuccess(await call('get_run', { run_id: done.run_id }));
    assert.equal(read.record.type, 'generation');
    assert.equal(read.record.prompt, 'A portrait poster for the campaign "Autumn webinar".');
  });

  test('an asset given as a reference goes to images/edits as a file', async () => {
    await define('poster-flare', poster('openai/gpt-image-2.6-flare'));
    const logo = assertToolSuccess(await run('poster-flare', { title: 'Logo' })).output.assets[0];
    const done = assertToolSuccess(await run('poster-flare', { title: 'Spring', logo: logo.asset_id }));
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    const sent = (await received('openai/gpt-image-2.6-flare')).at(-1);
    assert.equal(sent.path, '/v1/images/edits');
    assert.equal(sent.body.prompt, 'A portrait poster for the campaign "Spring".');
    assert.equal(sent.body.files.length, 1);
    assert.deepEqual(
      { name: sent.body.files[0].name, type: sent.body.files[0].content_type, sha256: sent.body.files[0].sha256 },
      { name: 'image[]', type: 'image/png', sha256: logo.sha256 },
    );

    const missing = assertToolSuccess(await run('poster-flare', { title: 'Spring', logo: 'ast_aaaaaaaaaaaaaaaa' }));
    assert.equal(missing.status, 'failed');
    assert.equal(missing.error.reason, 'input_schema');
    assert.match(missing.error.detail, /The input's logo names the asset ast_aaaaaaaaaaaaaaaa, which could not be read/);
  });

  test('speech is kept as MP3 audio', async () => {
    await define('announce', SPEECH);
    const done = assertToolSuccess(await run('announce', { text: 'Doors open at nine.' }));
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    const [made] = done.output.assets;
    assert.equal(made.media_type, 'audio/mpeg');
    const { bytes } = await bytesOf(made.asset_id);
    assert.equal(sha256(bytes), made.sha256);
    assert.equal(bytes.subarray(0, 3).toString('latin1'), 'ID3');
    const sent = (await received('openai/tts-1')).at(-1);
    assert.equal(sent.path, '/v1/audio/speech');
    assert.deepEqual(sent.body, { model: 'openai/tts-1', input: 'Doors open at nine.', voice: 'nova', response_format: 'mp3' });
  });

  test('a workflow step runs a generation function and reads its assets', async () => {
    const workflow = `---
description: Draws a campaign poster and hands its asset on
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
steps:
  - id: draw
    function: generation/poster
    input:
      title: input.title
output:
  poster: steps.draw.output.assets
---
`;
    assertToolSuccess(await call('create_definition', { type: 'workflow', name: 'draw-campaign', source: workflow, overview: OVERVIEW }));
    let done = assertToolSuccess(await call('run_definition', { type: 'workflow', name: 'draw-campaign', input: { title: 'Winter' } }));
    for (let i = 0; i < 40 && done.status === 'started'; i += 1) {
      done = assertToolSuccess(await call('get_run', { run_id: done.run_id, wait_seconds: 5 }));
    }
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    const [poster] = done.output.poster;
    assert.equal(poster.media_type, 'image/png');
    const { bytes } = await bytesOf(poster.asset_id);
    assert.equal(sha256(bytes), poster.sha256);
  });

  test('a retired model is refused at save, naming the model that replaces it', async () => {
    const result = await call('create_definition', {
      type: 'generation', name: 'old-poster', source: poster('openai/dall-e-3'), overview: OVERVIEW, diagram: DIAGRAM,
    });
    const problem = assertToolFailure(result, 'invalid_input');
    const at = problem.errors.find((e) => e.pointer === '/model');
    assert.equal(at.detail, 'names openai/dall-e-3, which was retired on 2026-05-12; name openai/gpt-image-2 instead, which replaces it, as hasty/openai/gpt-image-2');
  });

  test('a gateway that answers garbage, a url or an error fails the run with its reason', async () => {
    await define('poster-mini', poster('openai/gpt-image-2').replace('size: 1024x1536', 'size: 1024x1024'));
    const cases = [
      [{ garbage: true }, 'provider_error', /answered images\/generations in a shape this runtime cannot read: its body is not JSON/],
      [{ url_only: true }, 'provider_error', /as a url rather than as b64_json/],
      [{ status: 429, error: 'rate_limit_exceeded', message: 'Slow down' }, 'provider_error', /answered 429 rate_limit_exceeded: Slow down\. It is rate limited/],
    ];
    for (const [reply, reason, words] of cases) {
      await script('openai/gpt-image-2', reply);
      const done = assertToolSuccess(await run('poster-mini', { title: 'Garbage' }));
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.equal(done.error.reason, reason);
      assert.match(done.error.detail, words);
      const read = assertToolSuccess(await call('get_run', { run_id: done.run_id }));
      assert.deepEqual(read.record.assets, [], 'no asset is named');
    }
    await script('openai/gpt-image-2', {});
  });

  test('/directory hides every piece of a generation function', async () => {
    const made = assertToolSuccess(await run('poster', { title: 'Directory' }));
    const { tools } = await directory.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(!names.includes('list_generation_models') && !names.includes('get_asset'), names.join(', '));
    const create = tools.find((t) => t.name === 'create_definition');
    assert.ok(!create.inputSchema.properties.type.enum.includes('generation'));
    assert.ok(!JSON.stringify(tools).includes('generation-function'));

    const dcall = (name, args) => directory.callTool({ name, arguments: { playbook, ...args } });
    assertToolFailure(await dcall('get_definition', { type: 'generation', name: 'poster' }), 'not_found');
    assertToolFailure(await dcall('run_definition', { type: 'generation', name: 'poster', input: { title: 'x' } }), 'not_found');
    assertToolFailure(await dcall('get_run', { run_id: made.run_id }), 'not_found');
    // A workflow whose step runs one, saved through /mcp, is not run through /directory.
    assertToolFailure(await dcall('run_definition', { type: 'workflow', name: 'draw-campaign', input: { title: 'x' } }), 'not_found');
    const runs = assertToolSuccess(await dcall('list_runs', {}));
    assert.ok(!runs.runs.some((r) => r.definition.type === 'generation'), JSON.stringify(runs));
    const events = assertToolSuccess(await dcall('list_playbook_events', { limit: 100 }));
    assert.ok(!events.events.some((e) => e.run_id === made.run_id), 'no event of a generation run');
    const [first] = assertToolSuccess(await call('list_playbook_events', { run_id: made.run_id })).events;
    assertToolFailure(await dcall('get_event', { event_id: first.event_id }), 'not_found');
    assertToolFailure(await directory.callTool({ name: 'get_guide', arguments: { guide: 'generation-function' } }), 'not_found');
    const terminology = assertToolSuccess(await directory.callTool({ name: 'get_guide', arguments: { guide: 'terminology' } }));
    assert.ok(!/generation/i.test(terminology.text));
    const { resources } = await directory.listResources();
    assert.ok(!resources.some((r) => r.uri === 'guide://generation-function'));
    const everywhere = await client.listResources();
    assert.ok(everywhere.resources.some((r) => r.uri === 'guide://generation-function'));
  });
});
