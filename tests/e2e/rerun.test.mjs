// rerun_run as an agent repairs a workflow, through the official v1 TypeScript SDK: a workflow fails at
// its last step, the agent fixes that step's function and runs the workflow again from the step; the
// steps before it are not run again (their functions' runs are counted), the new run names the old
// one, and list_runs finds it by rerun_of. The refusals come in words, over MCP and over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ADD_VAT } from './fixtures.mjs';
import { assertToolFailure, assertToolSuccess, runtimeUrl, uniqueName } from './helpers.mjs';

const DIAGRAM = 'flowchart LR\n  A[Net] --> B[Gross]';
// Its output schema wants text until it is fixed, so the step that calls it fails.
const rounding = (type) => `---
description: Rounds a gross amount
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
output:
  schema: { type: object, properties: { gross: { type: ${type} } }, required: [gross] }
compute:
  gross: input.net * 1
---
`;
const INVOICE = `---
description: Adds VAT twice, then rounds
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
steps:
  - id: first
    function: computation/add-vat
    input:
      net: input.net
  - id: second
    function: computation/add-vat
    input:
      net: steps.first.output.gross
  - id: round
    function: computation/rounding
    input:
      net: steps.second.output.gross
output:
  gross: steps.round.output.gross
---
`;

describe('rerun_run through @modelcontextprotocol/sdk (v1)', () => {
  let client;
  let playbook;
  const call = (name, args = {}) => client.callTool({ name, arguments: { playbook, ...args } });
  const save = (tool, type, name, source) => call(tool, {
    type, name, source, overview: `The ${name} ${type} of the rerun test does what its description says.`,
    ...(type === 'workflow' ? {} : { diagram: DIAGRAM }),
  });
  /** Reads a run until it has ended. */
  async function ended(run_id) {
    for (let i = 0; i < 20; i++) {
      const run = assertToolSuccess(await call('get_run', { run_id, wait_seconds: 2 }));
      if (run.status !== 'started') return run;
    }
    return assert.fail(`${run_id} did not end`);
  }
  const runsOf = async (args) => assertToolSuccess(await call('list_runs', { limit: 100, ...args })).runs;

  before(async () => {
    client = new Client({ name: 'e2e-rerun', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('rerun') } })).id;
    assertToolSuccess(await save('create_definition', 'computation', 'add-vat', ADD_VAT));
    assertToolSuccess(await save('create_definition', 'computation', 'rounding', rounding('string')));
    assertToolSuccess(await save('create_definition', 'workflow', 'invoice', INVOICE));
  });
  after(async () => { await client?.close(); });

  test('a failed workflow runs again from its failing step once fixed, the steps before not run again', async () => {
    assertToolSuccess(await call('run_definition', { type: 'workflow', name: 'invoice', input: { net: 100 }, run_id: 'inv-1' }));
    const failed = await ended('inv-1');
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    const vatRuns = (await runsOf({ type: 'computation', name: 'add-vat' })).length;
    assert.equal(vatRuns, 2, 'the two add-vat steps ran once each');

    const early = assertToolFailure(await call('rerun_run', { run_id: 'inv-1', from_step: 'total' }), 'invalid_input');
    assert.match(early.errors[0].detail, /first, second and round/);

    assertToolSuccess(await save('update_definition', 'computation', 'rounding', rounding('number')));
    const again = await call('rerun_run', { run_id: 'inv-1', from_step: 'round', new_run_id: 'inv-2' });
    const started = assertToolSuccess(again);
    assert.deepEqual(started.rerun_of, { run_id: 'inv-1', from_step: 'round' });
    assert.match(again.content[0].text, /^Started the workflow “invoice” again from the step “round” as the run inv-2, with the input of inv-1; “first” and “second” kept the outputs/);

    const done = await ended('inv-2');
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(done.output.gross, 144);
    assert.equal((await runsOf({ type: 'computation', name: 'add-vat' })).length, vatRuns, 'no add-vat step ran again');
    assert.equal((await runsOf({ type: 'computation', name: 'rounding' })).length, 2, 'the failing step ran once more');
    assert.deepEqual((await runsOf({ rerun_of: 'inv-1' })).map((r) => r.run_id), ['inv-2']);
    assert.equal((await ended('inv-1')).status, 'failed', 'the old run is untouched');

    const history = assertToolSuccess(await call('list_playbook_events', { kind: 'step_reused', limit: 10 }));
    assert.equal(history.events.filter((e) => e.run_id === 'inv-2').length, 2, JSON.stringify(history));
  });

  test('over HTTP, a run still going is refused, and a function has no steps', async () => {
    const res = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${playbook}/runs/inv-1-first-1/rerun`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from_step: 'first' }),
    });
    assert.equal(res.status, 400);
    const problem = await res.json();
    assert.equal(problem.errors[0].pointer, '/from_step');
    assert.match(problem.errors[0].detail, /has no steps/);
    const whole = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${playbook}/runs/inv-1-first-1/rerun`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}',
    });
    assert.equal(whole.status, 200);
    const run = await whole.json();
    assert.deepEqual([run.status, run.input, run.rerun_of], ['succeeded', { net: 100 }, { run_id: 'inv-1-first-1' }]);
  });
});
