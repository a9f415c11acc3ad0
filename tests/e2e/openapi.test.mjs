// The OpenAPI document of the HTTP API, end to end: GET /v1/openapi.json is a valid OpenAPI 3.1
// document (@seriousme/openapi-schema-validator) that the root index names; then every operation it
// lists is called once over HTTP, by the method and path the document gives, and each success body is
// checked with ajv (JSON Schema 2020-12) against the operation's schema for the status it answered, as
// are refusals against Problem. The last test fails when an operation has no sample call here. The
// three steps of an OAuth consent at a service (give_client, start, finish) have no service to consent
// at on the shared runtime, so their sample is the refusal the document gives for a connection that
// takes a key; connections.test.mjs runs them to success against its stand-in service.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import {
  ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW, addVat, scriptTinyImage, TINY_IMAGE_DIAGRAM, TINY_IMAGE_OVERVIEW, tinyImageFunction,
} from './fixtures.mjs';
import { runtimeUrl, uniqueName } from './helpers.mjs';
import { toolServers } from './tool_servers.mjs';

const APPROVE = `---
description: Asks the owner of an order to approve it
input:
  schema: { type: object, properties: { order: { type: string } }, required: [order] }
ask:
  deliver: agent
  answer:
    schema:
      type: object
      properties:
        verdict: { type: string, enum: [approve, reject] }
      required: [verdict]
---
Approve the order {{ input.order }}? Answer approve or reject.
`;
const APPROVE_OVERVIEW = 'Asks the owner of an order to approve or reject it, and answers the verdict.';
const APPROVE_DIAGRAM = 'flowchart LR\n  A[order] --> B[ask the owner] --> C[verdict]';

const WAIT_THEN_PRICE = `---
description: Waits for the approval of an order, then prices it
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
steps:
  - id: wait_for_approval
    wait:
      event: order_approved
      where: { approved: true }
  - id: price
    function: computation/add-vat
    input:
      net: input.net
output:
  price: steps.price.output
---
`;
const WAIT_THEN_PRICE_OVERVIEW = 'Waits until an order is approved, then prices it with VAT through add-vat.';

// The components' $refs point into the document; ajv reads them from one schema under this id.
const COMPONENTS = 'https://openapi.test.invalid/components';

/** A deep copy with each `#/components/schemas/X` pointed at the same schema under COMPONENTS. */
function rebased(value) {
  if (Array.isArray(value)) return value.map(rebased);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k,
    k === '$ref' && typeof v === 'string' ? v.replace(/^#\/components\/schemas\//, `${COMPONENTS}#/$defs/`) : rebased(v)]));
}

describe('GET /v1/openapi.json', { timeout: 120_000 }, () => {
  let doc;
  let ajv;
  const called = new Set();

  /** The operation of an operationId: its path and method, as the document gives them. */
  function operation(id) {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op.operationId === id) return { path, method: method.toUpperCase(), op };
      }
    }
    return assert.fail(`the document has no operation ${id}`);
  }

  function resolved(object) {
    if (!object?.$ref) return object;
    return object.$ref.slice(2).split('/').reduce((at, part) => at?.[part], doc);
  }

  function fits(schema, value, what) {
    const validate = ajv.compile(rebased(schema));
    assert.ok(validate(value), `${what} does not fit its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 800)}`);
  }

  /** Sends one operation: path parameters filled in (org is local), query and JSON body as given. */
  async function send(id, { params = {}, query = {}, body } = {}, { bodyFits = true } = {}) {
    const { path, method, op } = operation(id);
    const filled = path.replace(/\{(\w+)\}/g, (_, name) => {
      const value = name === 'org' ? 'local' : params[name];
      assert.ok(value !== undefined, `${id} needs the path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
    const init = { method, headers: {} };
    if (body !== undefined) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      assert.ok(schema, `${id} takes no body in the document`);
      if (bodyFits) fits(schema, body, `the body sent to ${id}`);
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${runtimeUrl()}${filled}${search ? `?${search}` : ''}`, init);
    return { id, op, status: res.status, headers: res.headers, text: await res.text() };
  }

  /** Checks an answer against the document's response for its status (or default); returns the body. */
  function checked(res) {
    const response = resolved(res.op.responses[String(res.status)] ?? res.op.responses.default);
    const media = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const content = response?.content?.[media];
    assert.ok(content, `${res.id} answered ${res.status} as ${media}, which the document does not give: ${res.text.slice(0, 300)}`);
    const body = media.endsWith('json') ? JSON.parse(res.text) : res.text;
    fits(content.schema, body, `${res.id}'s ${res.status}`);
    return body;
  }

  /** A sample call that must succeed with a status the document gives as a success. */
  async function call(id, args) {
    const res = await send(id, args);
    const successes = Object.keys(res.op.responses).filter((s) => /^2\d\d$/.test(s));
    assert.ok(successes.includes(String(res.status)), `${id} answered ${res.status}, not ${successes}: ${res.text.slice(0, 500)}`);
    called.add(id);
    return checked(res);
  }

  /** A sample refusal (its body may break the schema on purpose): its status, a problem document, and the Problem schema. */
  async function refuse(id, args, status) {
    const res = await send(id, args, { bodyFits: false });
    assert.equal(res.status, status, `${id}: ${res.text.slice(0, 300)}`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = checked(res);
    assert.equal(problem.status, status);
    return problem;
  }

  /**
   * The sample of an operation that cannot succeed on the shared runtime: a well-formed call (its
   * body fits the document) refused with a status the document gives that operation, not its default.
   */
  async function sampleRefusal(id, args, status) {
    const res = await send(id, args);
    assert.ok(res.op.responses[String(status)], `${id}: the document gives no ${status}`);
    const problem = await refuse(id, args, status);
    called.add(id);
    return problem;
  }

  before(async () => {
    const res = await fetch(`${runtimeUrl()}/v1/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    doc = await res.json();
    // Strict, so that a keyword ajv does not know fails; a required field a then-branch adds is fine.
    ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: COMPONENTS, $defs: rebased(doc.components.schemas) });
  });

  test('is a valid OpenAPI 3.1 document, named by the root index', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.ok(result.valid, `not a valid OpenAPI document: ${JSON.stringify(result.errors, null, 2)?.slice(0, 3000)}`);
    assert.equal(validator.version, '3.1');
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'Auto Runtime HTTP API');
    const index = await (await fetch(`${runtimeUrl()}/`)).json();
    assert.equal(index.http.openapi, '/v1/openapi.json');
    assert.equal(index.version, doc.info.version, 'the document has the runtime version');
    const self = await call('get_openapi');
    assert.deepEqual(self, doc, 'the document is the same on every read');
  });

  test('answers 405 with Allow: GET to any other method', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await fetch(`${runtimeUrl()}/v1/openapi.json`, { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'GET');
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      fits(doc.components.schemas.Problem, await res.json(), `the 405 of ${method}`);
    }
  });

  test('every operation answers what the document says', async () => {
    const guides = await call('list_guides');
    assert.ok(guides.guides.some((g) => g.name === 'playbooks'));
    assert.match(await call('get_guide', { params: { guide: 'playbooks' } }), /^#|\n#/);
    await call('list_models');
    await call('list_generation_models', { query: { kind: 'image' } });

    const made = await call('create_playbook', { body: { name: uniqueName('openapi'), description: 'Checks the OpenAPI document.' } });
    const playbook = made.id;
    await call('list_playbooks', { query: { limit: 5 } });
    await call('get_playbook', { params: { playbook } });
    await call('update_playbook', { params: { playbook }, body: { page: '# The OpenAPI check' } });

    const computation = { playbook, type: 'computation', name: 'add-vat' };
    const checked = await call('check_definition', {
      params: { playbook },
      body: { type: 'computation', name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM },
    });
    assert.deepEqual([checked.valid, checked.would], [true, 'create']);
    await call('create_definition', {
      params: { playbook, type: 'computation' },
      body: { name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM },
    });
    await call('list_definitions', { params: { playbook, type: 'computation' }, query: { include_retired: true } });
    await call('get_definition', { params: computation });
    await call('update_definition', {
      params: computation,
      body: { source: addVat('0.25'), overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM },
    });
    const priced = await call('run_definition', { params: computation, body: { input: { net: 100 } } });
    const read = await call('get_run', { params: { playbook, run_id: priced.run_id }, query: { wait_seconds: 5 } });
    assert.equal(read.status, 'succeeded', JSON.stringify(read));
    await call('list_runs', { params: { playbook }, query: { type: 'computation', name: 'add-vat' } });

    // A tool's image, kept as an asset: its record, and its bytes as the PNG they are.
    const logo = { playbook, type: 'reasoning', name: 'logo' };
    await call('create_definition', {
      params: { playbook, type: 'reasoning' },
      body: { name: 'logo', source: tinyImageFunction('gpt-4.1-openapi'), overview: TINY_IMAGE_OVERVIEW, diagram: TINY_IMAGE_DIAGRAM },
    });
    await scriptTinyImage('gpt-4.1-openapi');
    const drawn = await call('run_definition', { params: logo, body: { input: { subject: 'the logo' } } });
    assert.equal(drawn.status, 'succeeded', JSON.stringify(drawn));
    const drawnEvents = await call('list_playbook_events', { params: { playbook }, query: { run_id: drawn.run_id } });
    const assetId = drawnEvents.events.find((e) => e.kind === 'tool_call_answered')?.data?.assets?.[0]?.asset_id;
    assert.ok(assetId, JSON.stringify(drawnEvents.events));
    const asset = await call('get_asset', { params: { playbook, asset_id: assetId } });
    assert.equal(asset.media_type, 'image/png');
    assert.ok((await call('get_asset_content', { params: { playbook, asset_id: assetId } })).startsWith('\uFFFDPNG'));
    await refuse('get_asset_content', { params: { playbook, asset_id: 'ast_aaaaaaaaaaaaaaaa' } }, 404);

    const interaction = { playbook, type: 'interaction', name: 'approve-order' };
    await call('create_definition', {
      params: { playbook, type: 'interaction' },
      body: { name: 'approve-order', source: APPROVE, overview: APPROVE_OVERVIEW, diagram: APPROVE_DIAGRAM },
    });
    const asked = await call('run_definition', { params: interaction, body: { input: { order: 'A-1' } } });
    assert.equal(asked.status, 'started');
    const requests = await call('list_interactions', { params: { playbook } });
    assert.ok(requests.requests.some((r) => r.run_id === asked.run_id), JSON.stringify(requests));
    const answered = await call('answer_interaction', {
      params: { playbook, run_id: asked.run_id },
      body: { answer: { verdict: 'approve' } },
    });
    assert.equal(answered.status, 'succeeded');
    const unanswered = await call('run_definition', { params: interaction, body: { input: { order: 'A-2' } } });
    const cancelled = await call('cancel_run', { params: { playbook, run_id: unanswered.run_id } });
    assert.equal(cancelled.status, 'cancelled');
    const again = await call('rerun_run', { params: { playbook, run_id: priced.run_id }, body: { new_run_id: `${priced.run_id}-again` } });
    assert.deepEqual([again.status, again.rerun_of], ['succeeded', { run_id: priced.run_id }]);
    const reruns = await call('list_runs', { params: { playbook }, query: { rerun_of: priced.run_id } });
    assert.deepEqual(reruns.runs.map((r) => r.run_id), [again.run_id]);

    await call('create_definition', {
      params: { playbook, type: 'workflow' },
      body: { name: 'wait-then-price', source: WAIT_THEN_PRICE, overview: WAIT_THEN_PRICE_OVERVIEW },
    });
    const workflow = await call('run_definition', {
      params: { playbook, type: 'workflow', name: 'wait-then-price' },
      body: { input: { net: 40 } },
    });
    assert.equal(workflow.status, 'started');
    await call('send_run_event', {
      params: { playbook, run_id: workflow.run_id },
      body: { name: 'order_approved', data: { approved: true } },
    });
    const ended = await call('get_run', { params: { playbook, run_id: workflow.run_id }, query: { wait_seconds: 10 } });
    assert.equal(ended.status, 'succeeded', JSON.stringify(ended));
    assert.ok(Array.isArray(ended.steps), 'a workflow run has its steps');

    const event = await call('publish_event', { params: { playbook }, body: { kind: 'month_closed', data: { month: '2026-11' } } });
    await call('list_playbook_events', { params: { playbook }, query: { limit: 10 } });
    await call('list_playbook_events', { params: { playbook }, query: { run_id: workflow.run_id } });
    await call('get_event', { params: { playbook, event_id: event.event_id } });
    const history = await call('get_run_history', { params: { playbook, run_id: workflow.run_id } });
    assert.ok(history.events.length > 0, JSON.stringify(history));
    const rendered = await call('render_page', { params: computation, query: { run_id: priced.run_id } });
    assert.deepEqual([rendered.over, rendered.run_id], ['run', priced.run_id]);
    const presented = await call('render_playbook_page', { params: { playbook } });
    assert.equal(presented.markdown, '# The OpenAPI check');
    assert.ok(presented.definitions.some((d) => d.name === 'wait-then-price'), JSON.stringify(presented.definitions));
    const figures = await call('get_playbook_analytics', { params: { playbook } });
    assert.ok(figures.totals.runs >= 4, JSON.stringify(figures.totals));
    const stats = await call('get_stats', { params: { playbook }, query: { window: '24h' } });
    assert.ok(stats.current.runs >= 4 && stats.current.succeeded >= 3, JSON.stringify(stats.current));

    // The tool servers run.mjs started (tool_servers.mjs): a search, a tool read, checked and called.
    const echo = { playbook, server: 'fixture', tool: 'echo' };
    const found = await call('search', { query: { playbook, terms: 'note' } });
    assert.ok(found.tools.some((t) => t.name === 'fixture/write_note'), JSON.stringify(found.tools));
    assert.equal((await call('search_in_playbook', { params: { playbook }, query: { server: 'fixture', limit: 3 } })).tools.length, 3);
    assert.equal((await call('introspect', { params: { playbook, server: 'files', tool: 'read_text_file' } })).mark, 'reads');
    assert.equal((await call('dry_run', { params: echo, body: { arguments: { text: 'openapi' } } })).valid, true);
    assert.equal((await call('validate', { params: echo, body: { arguments: { text: 'openapi' } } })).valid, true);
    const brief = await call('query_connection', {
      params: { playbook, server: 'files', tool: 'read_text_file' }, body: { arguments: { path: 'autumn-reporting-trial.txt' } },
    });
    assert.match(brief.text, /^Campaign brief: Autumn reporting trial/);
    assert.equal((await call('execute_connection', { params: echo, body: { arguments: { text: 'openapi' } } })).text, 'openapi');

    // Comments, as the local developer, who is a person: a playbook's and the org's own, each made,
    // listed, resolved and reopened.
    const comment = await call('make_comment_in_playbook', { params: { playbook }, body: { address: 'ledger', body: 'Check the **runs**.', anchor: { x: 0.5 } } });
    assert.deepEqual([comment.status, comment.call.tool], ['open', 'list_runs']);
    assert.equal((await call('list_comments_in_playbook', { params: { playbook }, query: { under: 'ledger', open: true } })).comments[0].id, comment.id);
    assert.equal((await call('resolve_comment_in_playbook', { params: { playbook, id: comment.id }, body: { how: 'acted' } })).how, 'acted');
    assert.equal((await call('reopen_comment_in_playbook', { params: { playbook, id: comment.id } })).status, 'open');
    const own = await call('make_comment', { body: { address: 'settings/billing', body: 'Who pays for this?' } });
    assert.equal(own.report, true);
    assert.ok((await call('list_comments', { query: { limit: 5 } })).comments.some((c) => c.id === own.id));
    assert.equal((await call('resolve_comment', { params: { id: own.id }, body: { how: 'dismissed' } })).status, 'resolved');
    assert.equal((await call('reopen_comment', { params: { id: own.id } })).status, 'open');

    assert.equal((await call('pause_definition', { params: interaction, body: { reason: 'A holiday.' } })).status, 'paused');
    assert.equal((await call('resume_definition', { params: interaction })).status, 'active');
    assert.equal((await call('retire_definition', { params: interaction })).status, 'retired');
    assert.equal((await call('restore_definition', { params: interaction })).status, 'paused');

    assert.equal((await call('retire_playbook', { params: { playbook } })).status, 'retired');
    assert.equal((await call('restore_playbook', { params: { playbook } })).status, 'active');

    // Access, as the local developer of the org local: a key made, listed and revoked; a role
    // given, listed and taken away.
    const key = await call('create_key', { body: { name: uniqueName('openapi').replace(/[^A-Za-z0-9._-]/g, '-'), scopes: ['playbook:read'], playbooks: [playbook] } });
    assert.ok(key.key.startsWith('pbk_'));
    const keys = await call('list_keys');
    assert.ok(keys.keys.some((k) => k.id === key.id) && keys.keys.every((k) => !('key' in k)));
    assert.equal((await call('revoke_key', { params: { key: key.id } })).key.id, key.id);
    const person = `person:openapi-${Date.now()}`;
    assert.equal((await call('assign_role', { body: { person, role: 'viewer' } })).assignment.role, 'viewer');
    assert.ok((await call('list_role_assignments')).assignments.some((a) => a.person === person));
    assert.equal((await call('unassign_role', { params: { person } })).assignment.person, person);

    // Connections, as the local developer, who is a person: the CRM's HTTP API of run.mjs given by
    // hand with its key, approved through the link's operations, read, changed and removed.
    const { crm } = toolServers().servers;
    assert.ok((await call('list_providers')).providers.length > 0, 'the compiled-in catalogue');
    const added = await call('add_connection', {
      body: {
        name: `crm-${uniqueName('o').split(' ')[1]}`, type: 'openapi',
        entry: { document: crm.document, base_url: crm.base, playbooks: [playbook] },
        credential: { kind: 'secret', name: crm.header, in: 'header', instructions: 'Make a key under [Keys](https://crm.example/keys).', key_page: 'https://crm.example/keys' },
      },
    });
    assert.equal(added.status, 'pending');
    const connection = added.id;
    const token = new URL(added.connect.url).pathname.split('/').pop();
    assert.equal((await call('read_link', { params: { token } })).link.state, 'open');
    // A connection that takes a key takes no OAuth client and starts no consent at a service.
    const ownClient = await sampleRefusal('give_client', { params: { token }, body: { client_id: 'own-client', client_secret: 'own-client-secret' } }, 409);
    assert.match(ownClient.detail, /takes no client of the org's own/);
    assert.match((await sampleRefusal('start', { params: { token } }, 409)).detail, /takes no sign-in at its service: its credential is of the kind secret/);
    assert.match((await sampleRefusal('finish', { params: { token }, body: { query: 'code=made-up&state=made-up' } }, 409)).detail, /No sign-in at the service was started on this link/);
    await call('give_credential', { params: { token }, body: { value: crm.key } });
    assert.equal((await call('approve', { params: { token } })).connection.status, 'connected');
    assert.ok((await call('list_connections', { query: { limit: 10 } })).connections.some((c) => c.id === connection));
    assert.equal((await call('get_connection', { params: { connection } })).connection.status, 'connected');
    const crmTools = await call('list_connection_tools', { params: { connection } });
    assert.deepEqual(crmTools.tools.map((t) => t.name).sort(), [...crm.operations].sort());
    const serving = await call('set_connection_playbooks', { params: { connection }, body: { playbooks: [playbook] } });
    assert.deepEqual(serving.connection.playbooks, [playbook]);
    assert.equal((await call('set_connection_signing_secret', { params: { connection }, body: { secret: 'whsec-openapi-sample-0123456789' } })).connection.signing_secret, true);
    assert.equal((await call('remove_connection_signing_secret', { params: { connection } })).connection.signing_secret, false);
    const relinked = await call('reconnect_connection', { params: { connection } });
    const newer = new URL(relinked.connect.url).pathname.split('/').pop();
    assert.notEqual(newer, token);
    // Cancelling the new link of a connection that works leaves it as it was.
    assert.equal((await call('cancel', { params: { token: newer } })).connection.status, 'connected');
    assert.equal((await call('remove_connection', { params: { connection } })).connection.status, 'removed');
  });

  test('refusals are problem documents of the Problem schema', async () => {
    const invalid = await refuse('create_playbook', { body: { name: '' } }, 400);
    assert.equal(invalid.reason, 'invalid_input');
    assert.ok(invalid.errors.some((e) => e.pointer === '/name'));
    assert.equal((await refuse('get_playbook', { params: { playbook: 'pb_aaaaaaaaaaaaaaaa' } }, 404)).reason, 'not_found');
    assert.equal((await refuse('get_guide', { params: { guide: 'no-such-guide' } }, 404)).reason, 'not_found');
    const playbook = (await call('create_playbook', { body: { name: uniqueName('openapi refusals') } })).id;
    const misfit = await refuse('validate', { params: { playbook, server: 'fixture', tool: 'echo' }, body: { arguments: { text: 7 } } }, 400);
    assert.deepEqual(misfit.errors.map((e) => e.pointer), ['/arguments/text']);
  });

  test('every operation of the document had a sample call', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    assert.ok(ids.length >= 28, `${ids.length} operations`);
    assert.deepEqual(ids.filter((id) => !called.has(id)), [], 'operations without a sample call in openapi.test.mjs');
  });
});
