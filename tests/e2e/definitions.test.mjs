// Definitions as an agent sees them through the official v1 MCP client (@modelcontextprotocol/sdk):
// the worked example of each function guide, read with get_guide, saves as written; a document broken in
// several ways is refused once, with every problem at its place (a front-matter pointer `in` source, the
// body's line and column, the name, the overview, the diagram); the two interaction refusals; a
// generation document checked as its own type; the exact summary of a create, with and without a page; and
// the same operations over the HTTP API (201, the same fields, application/problem+json refusals); and a
// page rendered over its runs and over sample_output, and a run's page.result.
// Versions, used_by, the lifecycle and listing are in definitions_lifecycle.test.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertToolFailure, assertToolSuccess, pointers, runtimeUrl, uniqueName, withoutStudio } from './helpers.mjs';

const OVERVIEW = 'Takes a small input, works on it as its type does, and answers the result to the caller.';
const DIAGRAM = 'flowchart TD\n  A[Input] --> B[Work] --> C[Answer]';

/** A valid document of each served type; the broken variants below replace parts of these. */
const DOCS = {
  reasoning: `---
description: Reviews a campaign brief against four criteria
model: anthropic/claude-sonnet-4-5
input:
  schema:
    type: object
    properties:
      file: { type: string }
    required: [file]
tools: [files/read_text_file]
---
{% system %}Read the brief with the read_text_file tool.{% endsystem %}

File: {{ input.file }}
`,
  lookup: `---
description: Reads the kept VAT calculations
input:
  schema:
    type: object
    properties:
      min_gross: { type: number }
runs:
  of: computation/add-vat
  limit: 5
---
`,
  interaction: `---
description: Asks the campaign owner to approve a reviewed brief
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
ask:
  deliver: agent
  answer:
    schema: { type: object, properties: { verdict: { type: string, enum: [approve, revise] } } }
---
Approve the brief {{ input.title }}?
`,
  computation: `---
description: Adds VAT to a net amount
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
output:
  schema:
    type: object
    properties: { vat: { type: number }, gross: { type: number } }
    required: [vat, gross]
compute:
  vat: input.net * 0.2
  gross: input.net + vat
---
`,
  prediction: `---
description: Forecasts next quarter's monthly revenue
events: { kind: month_closed, field: totals.revenue }
every: month
aggregate: sum
method: exponential_smoothing
alpha: 0.4
horizon: 3
---
`,
};

/** The 1-based line and column where `needle` starts in `text` (the document's first `---` is line 1). */
function locate(text, needle) {
  const at = text.lastIndexOf(needle); // the last: the body comes after the front matter
  assert.ok(at >= 0, `${needle} is in the document`);
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: [...before.at(-1)].length + 1 };
}

function withChanges(doc, pairs) {
  return pairs.reduce((d, [from, to]) => {
    assert.ok(d.includes(from), `the base document holds ${from}`);
    return d.replace(from, to);
  }, doc);
}

async function connect() {
  const client = new Client({ name: 'e2e-definitions', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
  return client;
}

describe('definitions through @modelcontextprotocol/sdk (v1)', () => {
  let client;
  const call = (name, args = {}) => client.callTool({ name, arguments: args });
  const newPlaybook = async (prefix) => assertToolSuccess(await call('create_playbook', { name: uniqueName(prefix) })).id;
  const save = (playbook, type, name, source, extra = {}) =>
    call('create_definition', { playbook, type, name, source, overview: OVERVIEW, diagram: DIAGRAM, ...extra });

  before(async () => { client = await connect(); });
  after(async () => { await client?.close(); });

  test('a valid document of each type saves at version 1, active', async () => {
    const playbook = await newPlaybook('valid');
    for (const type of ['computation', 'lookup', 'reasoning', 'interaction', 'prediction']) {
      const name = type === 'computation' ? 'add-vat' : `sample-${type}`;
      const out = assertToolSuccess(await save(playbook, type, name, DOCS[type]));
      assert.deepEqual([out.type, out.name, out.version, out.status], [type, name, 1, 'active'], type);
      assert.equal(out.document, DOCS[type]);
      assert.deepEqual([out.overview, out.diagram, out.used_by, out.has_page], [OVERVIEW, DIAGRAM, [], false]);
    }
  });

  describe('the worked example of each guide saves as written', () => {
    let playbook;
    before(async () => { playbook = await newPlaybook('guides'); });

    /** The source, overview, diagram and name of a guide's `## Worked example`, read with get_guide. */
    async function workedExample(type) {
      const guide = `${type}-function`;
      const result = await call('get_guide', { guide });
      assert.notEqual(result.isError, true,
        `the runtime does not serve the guide ${guide} (it answered: ${result.content?.[0]?.text}); rebuild it with the guide`);
      const { text } = assertToolSuccess(result);
      const start = text.search(/^## Worked example\s*$/m);
      assert.ok(start >= 0, `${guide} has a "## Worked example" section`);
      const rest = text.slice(start + 3);
      const end = rest.search(/^## /m);
      const section = end >= 0 ? rest.slice(0, end) : rest;
      const block = (lang) => {
        const m = section.match(new RegExp(`^(\`{3,})${lang}[ \\t]*\\n([\\s\\S]*?)\\n\\1[ \\t]*$`, 'm'));
        assert.ok(m, `${guide}'s worked example has a \`\`\`${lang} block`);
        return m[2];
      };
      const prose = section.slice(0, section.indexOf('```'));
      const named = prose.match(/\bsave (?:it|this(?: \w+)?|the \w+(?: function)?) (?:as|under(?: the name)?) `?([a-z](?:[a-z0-9-]*[a-z0-9])?)`?/i)
        ?? prose.match(/\b(?:name|call) it `([a-z](?:[a-z0-9-]*[a-z0-9])?)`/i);
      return { source: `${block('markdown')}\n`, overview: block('text'), diagram: block('mermaid'),
        name: named ? named[1] : `example-${type}` };
    }

    // computation first: the lookup's worked example reads the runs of computation/add-vat.
    for (const type of ['computation', 'lookup', 'reasoning', 'interaction', 'prediction', 'generation']) {
      test(`${type}-function`, async () => {
        const ex = await workedExample(type);
        const out = assertToolSuccess(await call('create_definition', { playbook, type, ...ex }));
        assert.deepEqual([out.type, out.name, out.version, out.status], [type, ex.name, 1, 'active']);
        assert.deepEqual([out.document, out.overview, out.diagram], [ex.source, ex.overview, ex.diagram]);
        const of = ex.source.match(/^\s+of:\s*(\w+)\/([a-z0-9-]+)\s*$/m);
        if (of) { // a lookup of runs shows in the used_by of the definition it reads
          const target = assertToolSuccess(await call('get_definition', { playbook, type: of[1], name: of[2] }));
          assert.deepEqual(target.used_by, [{ type, name: ex.name }]);
        }
      });
    }
  });

  describe('a document broken in several ways is refused with every problem at its place', () => {
    // [type, replacements, front-matter pointers, body needle (the place of the body error) or null]
    const CASES = [
      ['reasoning',
        [['type: string', 'type: strung'], ['anthropic/claude-sonnet-4-5', 'claude'],
          ['[files/read_text_file]', '[files/read_text_file, files/read_text_file]'], ['{{ input.file }}', '{{ inptu.file }}']],
        ['/input/schema/properties/file/type', '/model', '/tools/1'], 'inptu'],
      ['lookup',
        [['min_gross: { type: number }', 'min_gross: { type: numbr }'], ['of: computation/add-vat', 'of: add-vat'],
          ['limit: 5', 'limit: 0']],
        ['/input/schema/properties/min_gross/type', '/runs/of', '/runs/limit'], null],
      ['interaction',
        [['title: { type: string }', 'title: { type: strung }'], ['deliver: agent', 'deliver: agent\n  expires_in_hours: 0'],
          ['{{ input.title }}', '{{ input.title }} for its owner, {{ owner }}']], // owner also stands in prose, before its tag
        ['/input/schema/properties/title/type', '/ask/expires_in_hours'], 'owner'],
      ['computation',
        [['net: { type: number } }', 'net: { type: nmber } }'], ['input.net + vat', 'input.net + tax']],
        ['/input/schema/properties/net/type', '/compute/gross'], null],
      ['prediction',
        [['kind: month_closed', 'kind: Month Closed'], ['exponential_smoothing', 'guess'], ['horizon: 3', 'horizon: 0']],
        ['/events/kind', '/method', '/alpha', '/horizon'], null],
    ];

    for (const [type, pairs, frontPointers, bodyNeedle] of CASES) {
      test(type, async () => {
        let source = withChanges(DOCS[type], pairs);
        let needle = bodyNeedle;
        if (!needle) { // types that take no body: any text after the front matter is the body's problem
          source += '\nstray text\n';
          needle = 'stray text';
        }
        const result = await save(await newPlaybook('broken'), type, 'Broken_Name', source,
          { overview: 'Too short.', diagram: undefined });
        const problem = assertToolFailure(result, 'invalid_input');
        const expected = [...frontPointers, '/body', '/name', '/overview', '/diagram'];
        assert.deepEqual([...pointers(problem)].sort(), [...expected].sort(), JSON.stringify(problem.errors));
        for (const e of problem.errors) {
          assert.ok(typeof e.detail === 'string' && e.detail.length > 0, `a detail for ${e.pointer}`);
          if (frontPointers.includes(e.pointer)) {
            assert.equal(e.in, 'source', `${e.pointer} is inside the document`);
            assert.equal(e.line, undefined, `${e.pointer} is placed by its pointer`);
          } else if (e.pointer === '/body') {
            assert.deepEqual({ line: e.line, column: e.column }, locate(source, needle), 'the body error is at its place');
          } else {
            assert.equal(e.in, undefined, `${e.pointer} is an argument, not inside the document`);
          }
        }
        const words = result.content[0].text;
        for (const p of [...frontPointers, '/name', '/overview', '/diagram']) assert.ok(words.includes(p), `the words name ${p}: ${words}`);
        assert.ok(words.includes(`line ${locate(source, needle).line}`), `the words give the body's line: ${words}`);
      });
    }

    test('a template that does not compile is refused at its line, and a body problem is in source', async () => {
      const playbook = await newPlaybook('body');
      const source = DOCS.reasoning.replace('File: {{ input.file }}', 'File: {{ input.file + }}\nMore.');
      const problem = assertToolFailure(await save(playbook, 'reasoning', 'syntax-error', source), 'invalid_input');
      assert.deepEqual(pointers(problem), ['/body']);
      const [error] = problem.errors;
      const { line } = locate(source, 'File:');
      assert.equal(error.line, line, `the line of the broken template: ${JSON.stringify(error)}`);
      assert.ok(error.column >= 1 && error.column <= 'File: {{ input.file + }}'.length + 1, `a column on that line: ${error.column}`);
      assert.equal(error.in, 'source', 'a body problem is inside the document given as source');
    });

    test('front matter that is not YAML is refused at its line of the source, beside the other arguments', async () => {
      const source = '---\ndescription: Adds VAT\ndescription: Adds tax\n---\n';
      const problem = assertToolFailure(await save(await newPlaybook('yaml'), 'computation', 'Bad', source, { overview: 'Short.' }),
        'invalid_input');
      assert.deepEqual(pointers(problem).sort(), ['', '/name', '/overview']);
      const yaml = problem.errors.find((e) => e.pointer === '');
      assert.deepEqual([yaml.line, yaml.column, yaml.in], [3, 1, 'source'], JSON.stringify(yaml));
    });
  });

  test('interaction: an ask without deliver, and a notify with tool agent or none, are refused at their key', async () => {
    const playbook = await newPlaybook('interaction');
    const noDeliver = await save(playbook, 'interaction', 'ask-nobody', DOCS.interaction.replace('  deliver: agent\n', ''));
    const problem = assertToolFailure(noDeliver, 'invalid_input');
    assert.deepEqual(pointers(problem), ['/ask/deliver']);
    assert.equal(problem.errors[0].in, 'source');
    assert.match(noDeliver.content[0].text, /deliver: agent/, 'the words say to write deliver: agent');
    assert.match(problem.errors[0].detail,
      /these can send a request and read its replies: fixture, which sends with fixture\/post_message and reads the replies with fixture\/read_replies/,
      'the words name each server of the playbook that can send and read replies, with its two tools');
    const otherDeliver = DOCS.interaction.replace('deliver: agent', 'deliver: email');
    assert.deepEqual(pointers(assertToolFailure(await save(playbook, 'interaction', 'ask-email', otherDeliver), 'invalid_input')),
      ['/ask/deliver']);

    const notify = (spec) => DOCS.interaction.replace(/ask:\n[\s\S]*?\n---/, `notify: ${spec}\n---`);
    for (const [label, spec] of [['tool agent', '{ tool: agent }'], ['no tool', '{ arguments: { text: "{{ input.title }}" } }']]) {
      const result = await save(playbook, 'interaction', 'tell-team', notify(spec));
      assert.deepEqual(pointers(assertToolFailure(result, 'invalid_input')), ['/notify/tool'], label);
      assert.match(result.content[0].text, /server\/tool/, `${label}: the words say how a tool is named`);
    }
    const sent = assertToolSuccess(await save(playbook, 'interaction', 'tell-team', notify('{ tool: fixture/post_message, arguments: { channel: "#marketing", text: "{{ message }}" } }')));
    assert.equal(sent.version, 1, 'a notify through a tool saves');
  });

  test('a generation document is checked as its own type, every problem at its pointer', async () => {
    const playbook = await newPlaybook('generation');
    const result = await call('create_definition', { playbook, type: 'generation', name: 'later', source: DOCS.computation, overview: OVERVIEW, diagram: DIAGRAM });
    const problem = assertToolFailure(result, 'invalid_input');
    for (const pointer of ['/output', '/compute', '/model', '/body']) {
      assert.ok(pointers(problem).includes(pointer), `${pointer} in ${pointers(problem)}`);
    }
    assertToolSuccess(await call('list_definitions', { playbook, type: 'generation' }));
    assertToolFailure(await call('get_definition', { playbook, type: 'generation', name: 'later' }), 'not_found');
  });

  test('the summary of a create says what it does, and notes a missing page', async () => {
    const playbook = await newPlaybook('summary');
    const noPage = await save(playbook, 'computation', 'add-vat', DOCS.computation);
    assertToolSuccess(noPage);
    assert.equal(noPage.content[0].text, 'Created the computation function “add-vat”. What it does: Adds VAT to a net amount. '
      + 'It has been saved but has not been run yet. It has no page yet; the page guide says how to give it one.');

    const paged = DOCS.interaction.replace('---\nApprove', 'page: "# Approvals\\n\\nEach answer the owner gave."\n---\nApprove');
    const withPage = await save(playbook, 'interaction', 'approve-campaign-brief', paged);
    assert.equal(assertToolSuccess(withPage).has_page, true);
    assert.equal(withPage.content[0].text, 'Created the interaction function “approve-campaign-brief”. What it does: '
      + 'Asks the campaign owner to approve a reviewed brief. It has been saved but has not been run yet.');

    const long = DOCS.prediction.replace(/description: .*/, `description: ${'Forecasts the revenue of a month '.repeat(9).trim()}`);
    const capped = await save(playbook, 'prediction', 'long-words', long);
    assertToolSuccess(capped); // a summary stops at 400 characters, even with a 300-character description
    assert.match(capped.content[0].text, /^Created the prediction function “long-words”\. What it does: Forecasts/);
  });
});

describe('definitions over the HTTP API', () => {
  const base = () => `${runtimeUrl()}/v1/orgs/local/playbooks`;
  async function request(method, path, body) {
    const init = { method, headers: body === undefined ? {} : { 'content-type': 'application/json' } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(`${base()}${path}`, init);
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined, text };
  }
  const problemOf = (res, status, reason) => {
    assert.equal(res.status, status, res.text);
    assert.match(res.type, /^application\/problem\+json/);
    assert.equal(res.json.reason, reason);
    assert.equal(res.json.status, status);
    return res.json;
  };

  test('POST creates (201), GET and PUT answer the same fields, refusals are problem documents', async () => {
    const pb = await request('POST', '', { name: uniqueName('http-defs') });
    assert.equal(pb.status, 201, pb.text);
    const defs = `/${pb.json.id}/definitions`;
    const created = await request('POST', `${defs}/computation`,
      { name: 'add-vat', source: DOCS.computation, overview: OVERVIEW, diagram: DIAGRAM });
    assert.equal(created.status, 201, created.text);
    assert.match(created.type, /^application\/json/);
    assert.deepEqual(Object.keys(created.json).sort(), ['created_at', 'created_by', 'description', 'diagram', 'document',
      'has_page', 'name', 'overview', 'status', 'studio', 'type', 'updated_at', 'updated_by', 'used_by', 'version']);
    assert.deepEqual([created.json.type, created.json.name, created.json.version, created.json.status, created.json.document],
      ['computation', 'add-vat', 1, 'active', DOCS.computation]);

    const read = await request('GET', `${defs}/computation/add-vat`);
    assert.equal(read.status, 200, read.text);
    const { runs, standing, ...definition } = read.json;
    assert.deepEqual(definition, withoutStudio(created.json, `/playbooks/${pb.json.id}/definitions/computation/add-vat`));
    assert.deepEqual([runs, standing.runs, standing.says], [[], 0, 'It has not run yet.'], 'a read adds its page\'s runs and standing');
    const client = await connect();
    try {
      const viaMcp = assertToolSuccess(await client.callTool({ name: 'get_definition',
        arguments: { playbook: pb.json.id, type: 'computation', name: 'add-vat' } }));
      assert.deepEqual(viaMcp, read.json, 'MCP and HTTP answer the same definition');
    } finally { await client.close(); }

    const put = await request('PUT', `${defs}/computation/add-vat`,
      { source: DOCS.computation.replace('0.2', '0.21'), overview: OVERVIEW, diagram: DIAGRAM });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.version, 2);
    const list = await request('GET', `${defs}/computation?limit=1`);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.definitions.map((d) => [d.name, d.version]), [['add-vat', 2]]);

    const broken = problemOf(await request('POST', `${defs}/computation`,
      { name: 'x', source: DOCS.computation.replace('input.net + vat', 'input.net + tax'), overview: 'Short.', diagram: DIAGRAM }),
    400, 'invalid_input');
    assert.deepEqual(pointers(broken).sort(), ['/compute/gross', '/overview']);
    problemOf(await request('POST', `${defs}/computation`, { name: 'add-vat', source: DOCS.computation, overview: OVERVIEW, diagram: DIAGRAM }),
      409, 'conflict');
    problemOf(await request('GET', `${defs}/computation/no-such-thing`), 404, 'not_found');
    problemOf(await request('POST', `${defs}/generation`, { name: 'later', source: DOCS.computation, overview: OVERVIEW, diagram: DIAGRAM }), 400, 'invalid_input');
  });

  test('a page renders over the runs (MCP) and over sample_output (HTTP, JSON in the query), and get_run answers page.result', async () => {
    const pb = await request('POST', '', { name: uniqueName('http-page') });
    assert.equal(pb.status, 201, pb.text);
    const page = 'page: |\n  # VAT\n\n  {% if latest and latest.output %}Gross {{ latest.output.gross }}{% else %}Not run{% endif %}; {{ counts.runs }} runs.\n';
    const source = DOCS.computation.replace(/---\n$/, `${page}---\n`);
    const created = await request('POST', `/${pb.json.id}/definitions/computation`,
      { name: 'add-vat', source, overview: OVERVIEW, diagram: DIAGRAM });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.has_page, true);
    const client = await connect();
    try {
      const args = { playbook: pb.json.id, type: 'computation', name: 'add-vat' };
      const run = assertToolSuccess(await client.callTool({ name: 'run_definition', arguments: { ...args, input: { net: 100 }, run_id: 'inv-1' } }));
      assert.equal(run.status, 'succeeded');
      const read = assertToolSuccess(await client.callTool({ name: 'get_definition', arguments: { ...args, render: true } }));
      assert.deepEqual(read.page, { markdown: '# VAT\n\nGross 120.0; 1 runs.', over: 'runs' });
      assert.deepEqual([read.standing.runs, read.standing.succeeded, read.standing.latest_status], [1, 1, 'succeeded']);
      assert.deepEqual(read.runs.map((r) => r.run_id), ['inv-1']);
      const ran = assertToolSuccess(await client.callTool({ name: 'get_run', arguments: { playbook: pb.json.id, run_id: 'inv-1' } }));
      assert.deepEqual(ran.page, { result: '# VAT\n\nGross 120.0; 1 runs.' });
    } finally { await client.close(); }

    const at = `/${pb.json.id}/definitions/computation/add-vat?render=true&sample_output=`;
    const sample = await request('GET', `${at}${encodeURIComponent(JSON.stringify({ vat: 2, gross: 12 }))}`);
    assert.equal(sample.status, 200, sample.text);
    assert.deepEqual(sample.json.page, { markdown: '# VAT\n\nGross 12; 1 runs.', over: 'sample_output' });
    const wrong = problemOf(await request('GET', `${at}${encodeURIComponent(JSON.stringify({ vat: 'two', gross: 12 }))}`), 400, 'invalid_input');
    assert.deepEqual(pointers(wrong), ['/sample_output/vat']);
    problemOf(await request('GET', `${at}%7Bnot-json`), 400, 'invalid_input');
  });
});
