// The command the conformance suite runs for a client scenario (conformance_client.test.mjs), with
// the runtime as the client under test:
//
//   node conformance_client.mjs <runtime URL> <proxy URL> <server name> <scenario server URL>
//
// The suite appends the scenario server's URL and sets MCP_CONFORMANCE_SCENARIO (and
// MCP_CONFORMANCE_CONTEXT, the arguments some scenarios want a tool called with). This script points
// the proxy's path of <server name>, which the runtime's TOOL_SERVERS names, at the scenario server,
// then does what an agent does over the runtime's HTTP API: makes a playbook, searches the server's
// tools, reads the ones it will call, checks arguments, and calls the tools the scenario expects to be
// called with the arguments it expects. Every request the scenario server sees is the runtime's.
// Each step says what it did on stdout; the exit code is 0 when every step answered as expected,
// else 1, and the suite records the code with its checks.
const [runtime, proxy, name, scenarioUrl] = process.argv.slice(2);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

const problems = [];
const say = (line) => console.log(line);
/** Records a problem unless `ok`; answers `ok`. */
function expect(ok, what) {
  if (!ok) problems.push(what);
  say(`${ok ? 'ok' : 'NOT OK'}: ${what}`);
  return ok;
}

async function request(method, path, body) {
  const res = await fetch(`${runtime}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, json, text };
}

let playbook;
const tools = (path = '') => `/v1/orgs/local/playbooks/${playbook}/tool-servers${path}`;

/** search with `server`: the server's entry and the names of the tools it offers. */
async function search() {
  const res = await request('GET', tools(`/search?server=${name}&limit=100`));
  expect(res.status === 200, `search with server ${name} answers 200 (${res.status}: ${res.text.slice(0, 300)})`);
  const entry = res.json?.servers?.find((s) => s.name === name);
  expect(entry?.available === true, `${name} is available (${JSON.stringify(entry)})`);
  return (res.json?.tools ?? []).map((t) => t.tool).sort();
}

async function introspect(tool) {
  const res = await request('GET', tools(`/${name}/tools/${encodeURIComponent(tool)}`));
  expect(res.status === 200, `introspect ${tool} answers 200 (${res.status}: ${res.text.slice(0, 300)})`);
  return res.json;
}

async function dryRun(tool, args) {
  const res = await request('POST', tools(`/${name}/tools/${encodeURIComponent(tool)}/dry-run`), { arguments: args });
  expect(res.status === 200 && res.json?.valid === true,
    `dry_run of ${tool} finds the arguments valid (${res.status}: ${res.text.slice(0, 300)})`);
  return res.json;
}

/** execute_connection; answers the call's answer, or the refusal as {status, json}. */
async function execute(tool, args) {
  const res = await request('POST', tools(`/${name}/tools/${encodeURIComponent(tool)}/execute`), { arguments: args, timeout_seconds: 20 });
  say(`execute ${tool}: ${res.status} ${res.text.slice(0, 400)}`);
  return res;
}

async function executeAnswers(tool, args, text) {
  const res = await execute(tool, args);
  expect(res.status === 200 && res.json?.is_error === false, `${tool} answers a result`);
  if (text !== undefined) expect(res.json?.text === text, `${tool} answers ${JSON.stringify(text)} (${JSON.stringify(res.json?.text)})`);
  return res.json;
}

const sameList = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

// What an agent does for each scenario: the tools the scenario's server lists and expects called.
const PLANS = {
  // The server answers initialize and an empty tools/list; listing is what makes the client speak.
  async initialize() {
    expect(sameList(await search(), []), 'the server offers no tool');
  },
  async tools_call() {
    expect(sameList(await search(), ['add_numbers']), 'the server offers add_numbers');
    await dryRun('add_numbers', { a: 18000, b: 4500 });
    await executeAnswers('add_numbers', { a: 18000, b: 4500 }, 'The sum of 18000 and 4500 is 22500');
  },
  // The server answers the first request with -32022 (naming 2026-07-28 as supported), then serves.
  async 'request-metadata'() {
    expect(sameList(await search(), []), 'the server offers no tool');
  },
  async 'http-standard-headers'() {
    const listed = await search();
    expect(sameList(listed, ['my-hyphenated-tool', 'test_headers']), `the server offers its two tools (${listed})`);
    await executeAnswers('test_headers', {}, 'Headers test completed');
    await executeAnswers('my-hyphenated-tool', {}, 'Headers test completed');
  },
  async 'http-custom-headers'() {
    expect(sameList(await search(), ['test_custom_headers', 'test_custom_headers_null']), 'the server offers its two tools');
    for (const { name: tool, arguments: args } of context.toolCalls ?? []) {
      const nulls = Object.keys(args).filter((k) => args[k] === null);
      if (nulls.length) {
        // The runtime checks arguments against the tool's schema: null is no boolean, so it is
        // refused before anything is sent; the call goes again with the parameter not given, which
        // the scenario's check (no Mcp-Param header for a null or missing value) takes alike.
        const refused = await execute(tool, args);
        expect(refused.status === 400 && nulls.every((k) => (refused.json?.errors ?? []).some((e) => e.pointer === `/arguments/${k}`)),
          `${tool} with ${nulls.join(', ')} null is refused at their pointers`);
        const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
        await executeAnswers(tool, given, 'Custom headers test completed');
      } else {
        await executeAnswers(tool, args, 'Custom headers test completed');
      }
    }
    expect((context.toolCalls ?? []).length === 2, 'the scenario named the two calls it expects');
  },
  // The server lists one valid tool and eleven whose x-mcp-header is invalid: the runtime must
  // offer the valid one alone, and refuse to call the others, which an agent may still ask for.
  async 'http-invalid-tool-headers'() {
    const listed = await search();
    expect(sameList(listed, ['valid_tool']), `the server offers valid_tool alone (${listed})`);
    await executeAnswers('valid_tool', { region: 'us-west1' }, 'Tool call received');
    const invalid = [
      'invalid_empty_header', 'invalid_object_header', 'invalid_array_header', 'invalid_null_header',
      'invalid_number_header', 'invalid_duplicate_same_case', 'invalid_duplicate_diff_case',
      'invalid_space_in_name', 'invalid_colon_in_name', 'invalid_non_ascii_name', 'invalid_control_char_name',
    ];
    for (const tool of invalid) {
      const res = await execute(tool, { value: 'x' });
      expect(res.status === 404 && res.json?.reason === 'not_found', `${tool} is not offered, so not called`);
    }
  },
  // The tool's schema refers to a network URI. Reading it and checking arguments against it must
  // not fetch it; SEP-2106 says a schema that cannot be checked for an unresolved external $ref
  // SHOULD be refused rather than taken as permissive, and the runtime refuses to call such a tool.
  async 'json-schema-ref-no-deref'() {
    expect(sameList(await search(), ['lookup_user']), 'the server offers lookup_user');
    const read = await introspect('lookup_user');
    const ref = read?.input_schema?.properties?.profile?.$ref;
    expect(typeof ref === 'string' && ref.startsWith('http'), `the $ref is shown as the server wrote it (${ref})`);
    for (const verb of ['dry-run', 'execute']) {
      const res = await request('POST', tools(`/${name}/tools/lookup_user/${verb}`), { arguments: { id: 'ada-lovelace' } });
      expect(res.status === 503 && res.json?.kind === 'tool_unavailable' && res.json?.detail?.includes(ref),
        `${verb} refuses the tool, naming the reference it does not fetch (${res.status}: ${res.text.slice(0, 300)})`);
    }
  },
  // The focal tool's inputSchema, as introspect shows it, goes back through the echo tool verbatim.
  async 'json-schema-2020-12-preservation'() {
    const listed = await search();
    expect(sameList(listed, ['json_schema_2020_12_tool', 'json_schema_echo']), `the server offers its two tools (${listed})`);
    const read = await introspect('json_schema_2020_12_tool');
    await executeAnswers('json_schema_echo', { schema: read?.input_schema }, 'echoed');
  },
  // The tool's event stream is closed before its answer: the answer comes on the stream resumed.
  async 'sse-retry'() {
    expect(sameList(await search(), ['test_reconnection']), 'the server offers test_reconnection');
    await executeAnswers('test_reconnection', {}, 'Reconnection test completed successfully');
  },
};

try {
  const plan = PLANS[scenario];
  if (!plan) throw new Error(`no plan for the scenario ${scenario}`);
  const pointed = await fetch(`${proxy}/control/${name}`, { method: 'POST', body: JSON.stringify({ target: scenarioUrl }) });
  if (pointed.status !== 204) throw new Error(`the proxy refused the target: ${pointed.status} ${await pointed.text()}`);
  say(`${name} forwards to ${scenarioUrl}`);
  const made = await request('POST', '/v1/orgs/local/playbooks', { name: `conformance ${scenario} ${Date.now()}` });
  if (made.status !== 201) throw new Error(`making a playbook: ${made.status} ${made.text}`);
  playbook = made.json.id;
  await plan();
} catch (error) {
  problems.push(error.stack ?? String(error));
  console.log(`NOT OK: ${error.stack ?? error}`);
}
if (problems.length) console.error(`${problems.length} step(s) did not answer as expected:\n- ${problems.join('\n- ')}`);
process.exit(problems.length ? 1 : 0);
