// A reasoning function whose model calls a connection's tool, end to end: the tracker of the
// stand-in service is connected through its page in Chromium (the person signs in at the service),
// a function names `tracker/list_issues` in its tools, and a run's model (the Anthropic stand-in,
// scripted) calls it; the call reaches the service as the person who connected it, is kept in the
// run's history before and after, and no token of the consent appears in the run, its events or
// the log.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { launchBrowser } from './browser.mjs';
import { approveOnPage, standinProviders } from './connect_flow.mjs';
import { panicLines, startRuntime } from './harness.mjs';
import { assertToolSuccess } from './helpers.mjs';
import { startModelStandins } from './standin_models.mjs';
import { startStandinService } from './standin_service.mjs';

const MODEL = 'claude-sonnet-4-5';
const TRIAGE = `---
description: Reads the open issues of the tracker and says which to look at first
model: anthropic/${MODEL}
input:
  schema:
    type: object
    properties:
      team: { type: string }
    required: [team]
tools: [tracker/list_issues]
---
{% system %}List the open issues with the list_issues tool, then name the one the team should look at first and why.{% endsystem %}

Team: {{ input.team }}`;
const VERDICT = 'Look at issue #1 first: it blocks the release.';

describe('a reasoning function calls a connection\'s tool', { timeout: 180_000 }, () => {
  let service; let models; let runtime; let stateDir; let client; let browser;
  const call = async (name, args = {}) => client.callTool({ name, arguments: args });

  before(async () => {
    service = await startStandinService();
    models = await startModelStandins();
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-connections-run-'));
    const providers = { tracker: standinProviders(service).tracker };
    runtime = await startRuntime({ stateDir, vars: { ...models.vars, CONNECTION_PROVIDERS: JSON.stringify(providers) } });
    client = new Client({ name: 'connections-run-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtime.url}/mcp`)));
    browser = await launchBrowser();
  });
  after(async () => {
    await client?.close();
    await browser?.close();
    await runtime?.stop();
    await models?.close();
    await service?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  test('the model calls tracker/list_issues, which answers as the person who connected it', async () => {
    const added = assertToolSuccess(await call('add_connection', { provider: 'tracker' }), { summaryLimit: 1000 });
    const page = await approveOnPage(browser, added.connect.url, { person: 'ada' });
    assert.match(await page.content(), /Tracker is connected/);
    await page.close();

    const playbook = assertToolSuccess(await call('create_playbook', { name: 'Triage' })).id;
    assertToolSuccess(await call('create_definition', {
      playbook, type: 'reasoning', name: 'triage', source: TRIAGE,
      overview: 'Reads the open issues of the tracker and says which the team should look at first.',
      diagram: 'flowchart LR\n  A[team] --> B[list_issues] --> C[first issue]',
    }));
    const scripted = await fetch(`${models.anthropic.url}/__script`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, turns: [{ tool_calls: [{ name: 'list_issues', input: {} }] }, { text: VERDICT }] }),
    });
    assert.equal(scripted.status, 200);

    const run = assertToolSuccess(await call('run_definition', { playbook, type: 'reasoning', name: 'triage', input: { team: 'web' } }));
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(run.output, VERDICT);

    const requests = await (await fetch(`${models.anthropic.url}/__requests?model=${MODEL}`)).json();
    assert.deepEqual(requests[0].body.tools.map((t) => t.name), ['tracker__list_issues']);
    const results = requests[1].body.messages.at(-1).content.filter((b) => b.type === 'tool_result');
    assert.match(JSON.stringify(results), /Ada Lovelace/, 'the service answered as the person who connected it');

    const events = assertToolSuccess(await call('list_playbook_events', { playbook, run_id: run.run_id })).events;
    assert.deepEqual(events.map((e) => e.kind),
      ['run_started', 'model_answered', 'tool_call_started', 'tool_call_answered', 'model_answered', 'run_succeeded']);
    assert.equal(events[2].data.server, 'tracker');

    const record = JSON.stringify(assertToolSuccess(await call('get_run', { playbook, run_id: run.run_id })));
    const issued = service.issuedTokens();
    assert.ok(issued.access.length > 0);
    for (const token of [...issued.access, ...issued.refresh]) {
      for (const [where, text] of [['the run', record], ['its events', JSON.stringify(events)], ['the log', runtime.logs()]]) {
        assert.ok(!text.includes(token), `a token of the consent is in ${where}`);
      }
    }
    assert.deepEqual(panicLines(runtime.logs()), []);
  });
});
