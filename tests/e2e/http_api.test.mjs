// The HTTP API as a program calling it sees it: the playbook routes under /v1/orgs/local (statuses, the
// playbook's fields, limits, pagination, idempotence, retire/restore and their conflicts), the problem
// documents of every refusal (application/problem+json, reason, detail, errors[].pointer), another org
// forbidden, and the guides served as JSON and Markdown.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertPlaybook, GUIDES, PLAYBOOK_ID, pointers, runtimeUrl, uniqueName, withoutStudio } from './helpers.mjs';

const base = () => `${runtimeUrl()}/v1/orgs/local`;

async function request(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(path.startsWith('http') ? path : `${base()}${path}`, init);
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

/** Asserts a problem document and returns it. */
function assertProblem(res, status, reason) {
  assert.equal(res.status, status, `status; body: ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, 'problem content type');
  const problem = res.json;
  assert.ok(problem, `a JSON problem document: ${res.text}`);
  assert.equal(problem.status, status);
  assert.equal(problem.reason, reason);
  assert.equal(typeof problem.title, 'string');
  assert.equal(typeof problem.detail, 'string');
  assert.ok(problem.detail.length > 0);
  return problem;
}

const create = (body) => request('POST', '/playbooks', body);

describe('HTTP API: playbooks', () => {
  test('POST /playbooks creates an active playbook: 201', async () => {
    const name = uniqueName('http');
    const res = await create({ name, description: 'Made over HTTP.', page: '# Page' });
    assert.equal(res.status, 201, res.text);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    assertPlaybook(res.json, { withPage: true });
    assert.match(res.json.id, PLAYBOOK_ID);
    assert.deepEqual(
      { name: res.json.name, description: res.json.description, page: res.json.page, status: res.json.status },
      { name, description: 'Made over HTTP.', page: '# Page', status: 'active' });
    assert.equal(res.json.created_at, res.json.updated_at);
  });

  test('description and page default to empty', async () => {
    const res = await create({ name: uniqueName('bare') });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.description, '');
    assert.equal(res.json.page, '');
  });

  test('the limits are accepted at their bounds', async () => {
    const name = `${uniqueName('b')}${'n'.repeat(80)}`.slice(0, 80);
    const res = await create({ name, description: 'd'.repeat(1000), page: 'p'.repeat(65536) });
    assert.equal(res.status, 201, res.text.slice(0, 500));
    assert.equal(res.json.name.length, 80);
    assert.equal(res.json.page.length, 65536);
  });

  test('invalid fields are 400 invalid_input with a pointer at each', async () => {
    const cases = [
      [{ name: 'x'.repeat(81) }, '/name'],
      [{ name: '' }, '/name'],
      [{ name: ' padded ' }, '/name'],
      [{ name: 'tab\there' }, '/name'],
      [{ name: 123 }, '/name'],
      [{}, '/name'],
      [{ name: uniqueName(), description: 'd'.repeat(1001) }, '/description'],
      [{ name: uniqueName(), description: 7 }, '/description'],
      [{ name: uniqueName(), page: 'é'.repeat(32769) }, '/page'], // 65,538 bytes in 32,769 characters
      [{ name: uniqueName(), colour: 'red' }, '/colour'],
    ];
    for (const [body, pointer] of cases) {
      const problem = assertProblem(await create(body), 400, 'invalid_input');
      assert.ok(pointers(problem).includes(pointer), `${pointer} for ${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(problem)}`);
      for (const e of problem.errors) assert.equal(typeof e.detail, 'string');
    }
    const twoBad = assertProblem(await create({ name: '', description: 5 }), 400, 'invalid_input');
    assert.deepEqual(pointers(twoBad).sort(), ['/description', '/name'], 'every bad field is named');
  });

  test('a body that is not JSON, or not an object, is 400 invalid_input', async () => {
    assertProblem(await create('{"name": '), 400, 'invalid_input');
    assertProblem(await create('["a list"]'), 400, 'invalid_input');
  });

  test('a body that is not application/json is 415', async () => {
    const res = await request('POST', '/playbooks', JSON.stringify({ name: uniqueName() }), { 'content-type': 'text/plain' });
    assertProblem(res, 415, 'unsupported_media_type');
  });

  test('a name an active playbook has, in any case, is 409 conflict', async () => {
    const name = uniqueName('Taken');
    assert.equal((await create({ name })).status, 201);
    assertProblem(await create({ name }), 409, 'conflict');
    assertProblem(await create({ name: name.toLowerCase() }), 409, 'conflict');
  });

  test('GET /playbooks lists newest first, without pages, with next_cursor', async () => {
    const first = (await create({ name: uniqueName('older'), page: 'x' })).json;
    const second = (await create({ name: uniqueName('newer'), page: 'y' })).json;
    const res = await request('GET', '/playbooks');
    assert.equal(res.status, 200, res.text);
    assert.ok(Array.isArray(res.json.playbooks));
    assert.ok('next_cursor' in res.json);
    assert.equal(res.json.welcome, undefined, 'no welcome once the org has a playbook');
    const ids = res.json.playbooks.map((p) => p.id);
    assert.equal(ids[0], second.id, 'the newest playbook comes first');
    assert.equal(ids[1], first.id);
    for (const pb of res.json.playbooks) assertPlaybook(pb, { withPage: false });
    assert.ok(res.json.playbooks.length <= 50, 'default limit 50');
  });

  test('pages follow next_cursor without repeating a playbook', async () => {
    for (let i = 0; i < 3; i += 1) assert.equal((await create({ name: uniqueName('page') })).status, 201);
    const seen = [];
    let cursor = null;
    for (let i = 0; i < 3; i += 1) {
      const query = `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await request('GET', `/playbooks${query}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.playbooks.length, 1);
      assert.equal(typeof res.json.next_cursor, 'string', 'more pages remain');
      seen.push(res.json.playbooks[0].id);
      cursor = res.json.next_cursor;
    }
    assert.equal(new Set(seen).size, 3, `three distinct playbooks: ${seen}`);
    const all = await request('GET', '/playbooks?limit=100');
    assert.deepEqual(all.json.playbooks.slice(0, 3).map((p) => p.id), seen, 'pages in list order');
  });

  test('a limit out of 1..100 is 400 invalid_input', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=ten']) {
      assertProblem(await request('GET', `/playbooks?${query}`), 400, 'invalid_input');
    }
  });

  test('GET /playbooks/{id} reads one with its page; an unknown one is 404', async () => {
    const made = withoutStudio((await create({ name: uniqueName('read'), page: '# Read me' })).json, '/playbooks/');
    const res = await request('GET', `/playbooks/${made.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, made);
    assertProblem(await request('GET', '/playbooks/pb_aaaaaaaaaaaaaaaa'), 404, 'not_found');
  });

  test('PUT /playbooks/{id} changes what it is given and is idempotent', async () => {
    const made = (await create({ name: uniqueName('put'), description: 'before', page: 'p1' })).json;
    const newName = uniqueName('renamed');
    const res = await request('PUT', `/playbooks/${made.id}`, { name: newName, page: 'p2' });
    assert.equal(res.status, 200, res.text);
    assertPlaybook(res.json, { withPage: true });
    assert.equal(res.json.name, newName);
    assert.equal(res.json.description, 'before', 'a field not given is kept');
    assert.equal(res.json.page, 'p2');
    assert.equal(res.json.created_at, made.created_at);
    const again = await request('PUT', `/playbooks/${made.id}`, { name: newName, page: 'p2' });
    assert.equal(again.status, 200);
    assert.deepEqual({ ...again.json, updated_at: '' }, { ...res.json, updated_at: '' }, 'the same PUT again');
    assert.deepEqual((await request('GET', `/playbooks/${made.id}`)).json, again.json);
    const problem = assertProblem(await request('PUT', `/playbooks/${made.id}`, { name: 'x'.repeat(81) }), 400, 'invalid_input');
    assert.ok(pointers(problem).includes('/name'));
    assertProblem(await request('PUT', '/playbooks/pb_aaaaaaaaaaaaaaaa', { description: 'x' }), 404, 'not_found');
  });

  test('PUT is idempotent: the same PUT twice changes nothing, updated_at included', async () => {
    const made = (await create({ name: uniqueName('idem') })).json;
    const change = { name: uniqueName('idem2'), description: 'once', page: '# once' };
    const first = await request('PUT', `/playbooks/${made.id}`, change);
    const second = await request('PUT', `/playbooks/${made.id}`, change);
    assert.equal(second.status, 200);
    assert.deepEqual(second.json, first.json);
  });

  test('renaming onto another active playbook\'s name is 409', async () => {
    const a = (await create({ name: uniqueName('a') })).json;
    const b = (await create({ name: uniqueName('b') })).json;
    assertProblem(await request('PUT', `/playbooks/${b.id}`, { name: a.name.toUpperCase() }), 409, 'conflict');
  });

  test('retire and restore: 200, idempotent, listed only with include_retired', async () => {
    const made = (await create({ name: uniqueName('retire') })).json;
    const retired = await request('POST', `/playbooks/${made.id}/retire`);
    assert.equal(retired.status, 200, retired.text);
    assert.equal(retired.json.status, 'retired');
    assert.match(retired.json.retired_at, /^\d{4}-/);
    const twice = await request('POST', `/playbooks/${made.id}/retire`);
    assert.equal(twice.status, 200);
    assert.equal(twice.json.retired_at, retired.json.retired_at);
    const read = await request('GET', `/playbooks/${made.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.json.status, 'retired');
    const active = await request('GET', '/playbooks?limit=100');
    assert.ok(!active.json.playbooks.some((p) => p.id === made.id));
    const all = await request('GET', '/playbooks?limit=100&include_retired=true');
    assert.equal(all.json.playbooks.find((p) => p.id === made.id)?.status, 'retired');

    const restored = await request('POST', `/playbooks/${made.id}/restore`);
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.json.status, 'active');
    assert.equal(restored.json.retired_at, undefined);
    const restoredTwice = await request('POST', `/playbooks/${made.id}/restore`);
    assert.equal(restoredTwice.status, 200);
    assert.equal(restoredTwice.json.status, 'active');
    assertProblem(await request('POST', '/playbooks/pb_aaaaaaaaaaaaaaaa/retire'), 404, 'not_found');
    assertProblem(await request('POST', '/playbooks/pb_aaaaaaaaaaaaaaaa/restore'), 404, 'not_found');
  });

  test('a retired playbook\'s name is free again; restoring it then is 409', async () => {
    const name = uniqueName('reuse');
    const old = (await create({ name })).json;
    assert.equal((await request('POST', `/playbooks/${old.id}/retire`)).status, 200);
    const replacement = await create({ name });
    assert.equal(replacement.status, 201, replacement.text);
    assertProblem(await request('POST', `/playbooks/${old.id}/restore`), 409, 'conflict');
  });

  test('another org is 403 forbidden', async () => {
    const other = `${runtimeUrl()}/v1/orgs/someone-else`;
    assertProblem(await request('GET', `${other}/playbooks`), 403, 'forbidden');
    assertProblem(await request('POST', `${other}/playbooks`, { name: uniqueName() }), 403, 'forbidden');
  });

  test('a request from a foreign browser Origin is 403 forbidden', async () => {
    const res = await request('POST', '/playbooks', { name: uniqueName('csrf') }, { origin: 'http://evil.example.com' });
    assertProblem(res, 403, 'forbidden');
    const own = await request('GET', '/playbooks?limit=1', undefined, { origin: runtimeUrl() });
    assert.equal(own.status, 200, own.text);
  });

  test('an unsupported method on a playbook route is 405', async () => {
    const made = (await create({ name: uniqueName('method') })).json;
    const res = await request('DELETE', `/playbooks/${made.id}`);
    assertProblem(res, 405, 'method_not_allowed');
    assert.ok(res.headers.get('allow'), 'Allow names the methods');
  });
});

describe('HTTP API: guides', () => {
  test('GET /v1/guides lists the guides with name, title and description', async () => {
    const res = await request('GET', `${runtimeUrl()}/v1/guides`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    const names = res.json.guides.map((g) => g.name);
    for (const name of GUIDES) assert.ok(names.includes(name), `${name} in ${names}`);
    for (const guide of res.json.guides) {
      assert.deepEqual(Object.keys(guide).sort(), ['description', 'name', 'title']);
      assert.ok(guide.title.length > 0 && guide.description.length > 0, guide.name);
    }
  });

  test('GET /v1/guides/{guide} serves Markdown', async () => {
    for (const name of GUIDES) {
      const res = await request('GET', `${runtimeUrl()}/v1/guides/${name}`);
      assert.equal(res.status, 200, name);
      assert.match(res.headers.get('content-type'), /^text\/markdown/);
      assert.ok(res.text.length > 100, `${name} has content`);
    }
    const start = await request('GET', `${runtimeUrl()}/v1/guides/start`);
    assert.match(start.text, /get_guide|guide/);
  });

  test('an unknown guide is 404 naming the guides there are', async () => {
    const problem = assertProblem(await request('GET', `${runtimeUrl()}/v1/guides/no-such-guide`), 404, 'not_found');
    for (const name of GUIDES) assert.ok(problem.detail.includes(name), `detail names ${name}: ${problem.detail}`);
  });
});
