// The official MCP conformance suite's client scenarios, with the runtime's MCP client as the client
// under test, through its real path: a runtime of its own whose TOOL_SERVERS names one tool server per
// scenario run, each at a path of a forwarding proxy on loopback (conformance_proxy.mjs); the suite
// starts the scenario's test server and runs conformance_client.mjs with its URL, which points the
// proxy's path at it and drives the runtime over its HTTP API as an agent would (search, introspect,
// dry_run, execute_connection). The scenario server so sees exactly what the runtime sends.
//
// Every scenario runs with the newest installed suite that has it, @modelcontextprotocol/conformance-next
// (0.2.0-alpha.12): it has the 2026-07-28 scenarios and every one of the stable 0.1.16 (which the
// server-mode test keeps) but auth/cross-app-access-complete-flow, left out as the other auth scenarios
// are. Each run must record no FAILURE and no WARNING check, each of its named checks must succeed,
// and the command must exit 0. Each scenario left out is listed with why.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { startForwardingProxy } from './conformance_proxy.mjs';
import { NODE22, panicLines, ROOT, startRuntime } from './harness.mjs';

const SUITES = {
  next: join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance-next', 'dist', 'index.js'),
  stable: join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
};
const COMMAND = join(ROOT, 'tests', 'e2e', 'conformance_client.mjs');
/** How long the suite gives the command (it kills it then), and how long a whole run may take. */
const COMMAND_MS = 40_000;
const RUN_MS = 60_000;
/** How many scenarios run at once. */
const AT_ONCE = 4;

// Run: each with the revision its test server speaks and the checks (by id or name) that must each
// have succeeded, so that a run which exercised nothing cannot pass.
const RUN = [
  { scenario: 'initialize', spec: '2025-11-25', must: ['mcp-client-initialization'] },
  { scenario: 'tools_call', spec: '2025-11-25', must: ['tool-add-numbers', 'wire-schema-valid'] },
  { scenario: 'tools_call', spec: '2026-07-28', must: ['tool-add-numbers', 'wire-schema-valid'] },
  { scenario: 'sse-retry', spec: '2025-11-25', must: ['client-sse-graceful-reconnect', 'client-sse-retry-timing', 'client-sse-last-event-id'] },
  {
    scenario: 'request-metadata', spec: '2026-07-28',
    must: ['sep-2575-http-client-sends-version-header', 'sep-2575-client-populates-meta', 'sep-2575-client-sends-client-info',
      'sep-2575-http-version-header-matches-meta', 'sep-2575-client-retry-supported-version'],
  },
  // Its other checks, of initialize, prompts and resources, are SKIPPED: the runtime sends none of them.
  {
    scenario: 'http-standard-headers', spec: '2026-07-28',
    must: ['ClientMcpMethodHeader_tools_list', 'ClientMcpMethodHeader_tools_call', 'ClientMcpNameHeader_tools_call'],
  },
  {
    scenario: 'http-custom-headers', spec: '2026-07-28',
    must: ['sep-2243-client-supports-custom-headers', 'sep-2243-client-mirrors-designated-params', 'sep-2243-client-encode-values',
      'sep-2243-client-base64-unsafe', 'sep-2243-client-omit-null'],
  },
  {
    scenario: 'http-invalid-tool-headers', spec: '2026-07-28',
    must: ['sep-2243-client-reject-invalid-tool', 'sep-2243-x-mcp-header-not-empty', 'sep-2243-x-mcp-header-primitive-only',
      'sep-2243-x-mcp-header-unique', 'sep-2243-x-mcp-header-charset'],
  },
  { scenario: 'json-schema-ref-no-deref', spec: '2026-07-28', must: ['sep-2106-no-network-ref-deref'] },
  {
    scenario: 'json-schema-2020-12-preservation', spec: '2025-11-25',
    must: ['json-schema-2020-12-client-echo-completed', 'json-schema-2020-12-client-$schema-preserved',
      'json-schema-2020-12-client-$defs-preserved', 'json-schema-2020-12-client-additionalProperties-preserved', 'wire-schema-valid'],
  },
  {
    scenario: 'json-schema-2020-12-preservation', spec: '2026-07-28',
    must: ['json-schema-2020-12-client-echo-completed', 'json-schema-2020-12-client-$schema-preserved',
      'json-schema-2020-12-client-$defs-preserved', 'json-schema-2020-12-client-additionalProperties-preserved',
      'sep-2106-client-composition-keywords-preserved', 'sep-2106-client-conditional-keywords-preserved',
      'sep-2106-client-anchor-keyword-preserved', 'wire-schema-valid'],
  },
];

const OAUTH = "OAuth to a tool server: the runtime's client sends a static credential from a Worker secret; OAuth comes with connections, a later issue";
// Left out, each for the reason given; together with RUN they are every client scenario either suite lists.
const EXCLUDED = {
  'elicitation-sep1034-client-defaults':
    "the server asks the client for a form (elicitation/create on the call's stream); the runtime's client declares no elicitation capability and answers no request of a server",
  'sep-2322-client-request-state':
    "the tools answer input_required with an elicitation request (MRTR); the runtime's client declares no elicitation, sampling or roots capability, so it cannot answer one, and fails such a call",
  'sep-2640-client-no-prefetch': "the skills extension (skills/list, skill:// resources), which the runtime's client does not speak",
  'sep-2640-client-verify-digest': "the skills extension (skills/list, skill:// resources), which the runtime's client does not speak",
  'sep-2640-client-verify-size': "the skills extension (skills/list, skill:// resources), which the runtime's client does not speak",
  'sep-2640-client-verify-frontmatter': "the skills extension (skills/list, skill:// resources), which the runtime's client does not speak",
  ...Object.fromEntries([
    'metadata-default', 'metadata-var1', 'metadata-var2', 'metadata-var3', 'basic-cimd', 'scope-from-www-authenticate',
    'scope-from-scopes-supported', 'scope-omitted-when-undefined', 'scope-step-up', 'scope-retry-limit',
    'token-endpoint-auth-basic', 'token-endpoint-auth-post', 'token-endpoint-auth-none', 'pre-registration',
    '2025-03-26-oauth-metadata-backcompat', '2025-03-26-oauth-endpoint-fallback', 'resource-mismatch',
    'offline-access-scope', 'offline-access-not-supported', 'authorization-server-migration', 'iss-supported',
    'iss-not-advertised', 'iss-supported-missing', 'iss-wrong-issuer', 'iss-unexpected', 'iss-normalized',
    'metadata-issuer-mismatch', 'client-credentials-jwt', 'client-credentials-basic', 'enterprise-managed-authorization',
    'dpop', 'dpop-nonce', 'wif-jwt-bearer', 'cross-app-access-complete-flow',
  ].map((name) => [`auth/${name}`, OAUTH])),
};

/** The tool server a run is reached through: its scenario and revision, as a server's name may be written. */
const serverName = ({ scenario, spec }) => `${scenario}-${spec}`.toLowerCase().replace(/[^a-z0-9_-]/g, '-');

function runNode22(args, { timeoutMs } = {}) {
  return new Promise((resolveRun) => {
    const child = spawn(NODE22, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.stderr.on('data', (chunk) => { out += chunk; });
    const timer = timeoutMs && setTimeout(() => {
      out += `\n[test] the run took over ${timeoutMs} ms and was stopped`;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }, timeoutMs);
    child.on('exit', (code, signal) => { clearTimeout(timer); resolveRun({ code: code ?? signal, out }); });
  });
}

/** The client scenarios a suite lists. */
async function listed(cli) {
  const { code, out } = await runNode22([cli, 'list', '--client']);
  assert.equal(code, 0, out);
  const names = [...out.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1]);
  assert.ok(names.length > 0, `scenarios from: ${out}`);
  return names;
}

/** Runs the scenarios AT_ONCE at a time; answers a promise of each one's outcome, by index. */
function runAll(runs, start) {
  const outcomes = runs.map(() => { let settle; const p = new Promise((r) => { settle = r; }); return { p, settle }; });
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const i = next++;
      outcomes[i].settle(await start(runs[i]).catch((error) => ({ error })));
    }
  };
  for (let i = 0; i < AT_ONCE; i += 1) worker();
  return outcomes.map((o) => o.p);
}

describe('MCP conformance suite, client mode, with the runtime as the client', { timeout: 300_000 }, () => {
  const outDir = mkdtempSync(join(tmpdir(), 'conformance-client-'));
  const stateDir = mkdtempSync(join(tmpdir(), 'runtime-conformance-client-'));
  let proxy;
  let runtime;
  let outcomes;

  before(async () => {
    for (const path of [NODE22, COMMAND, ROOT]) {
      assert.ok(!/\s/.test(path), `the suite splits --command at spaces, so ${path} must hold none`);
    }
    proxy = await startForwardingProxy();
    const settings = Object.fromEntries(RUN.map((run) => [serverName(run), { type: 'mcp', url: proxy.path(serverName(run)), allowed: '*' }]));
    runtime = await startRuntime({ stateDir, vars: { TOOL_SERVERS: JSON.stringify(settings) } });
    outcomes = runAll(RUN, async (run) => {
      const name = serverName(run);
      const dir = join(outDir, name);
      const command = [NODE22, COMMAND, runtime.url, proxy.url, name].join(' ');
      const began = Date.now();
      const { code, out } = await runNode22([SUITES.next, 'client', '--command', command, '--scenario', run.scenario,
        '--spec-version', run.spec, '--timeout', String(COMMAND_MS), '-o', dir], { timeoutMs: RUN_MS });
      const [resultDir] = existsSync(dir) ? readdirSync(dir) : [];
      const read = (file) => (resultDir && existsSync(join(dir, resultDir, file)) ? readFileSync(join(dir, resultDir, file), 'utf8') : '');
      const checks = read('checks.json') ? JSON.parse(read('checks.json')) : null;
      return { code, out, checks, stdout: read('stdout.txt'), took: Date.now() - began, seen: proxy.seen(name) };
    });
  });

  after(async () => {
    const logs = runtime?.logs() ?? '';
    await runtime?.stop();
    await proxy?.close();
    rmSync(outDir, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(panicLines(logs), [], 'the runtime did not panic');
  });

  test('every client scenario of either suite is run or excluded with a reason', async () => {
    const run = new Set(RUN.map((r) => r.scenario));
    for (const name of Object.keys(EXCLUDED)) assert.ok(!run.has(name), `${name} is both run and excluded`);
    const next = await listed(SUITES.next);
    const stable = await listed(SUITES.stable);
    for (const name of RUN.map((r) => r.scenario)) assert.ok(next.includes(name), `${name} is a scenario of the suite it runs with`);
    const all = [...new Set([...next, ...stable])].sort();
    assert.deepEqual(all, [...new Set([...run, ...Object.keys(EXCLUDED)])].sort());
  });

  test('the proxy forwards the method, headers, body and a stream as it comes, and the answer as it goes', async () => {
    let release;
    const held = new Promise((r) => { release = r; });
    let got;
    const origin = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', async () => {
        got = { method: req.method, url: req.url, headers: req.headers, body };
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'session-7' });
        res.write('id: e1\nretry: 500\ndata: \n\n');
        await held; // the second event waits until the first has reached the test
        res.end('event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n');
      });
    });
    await new Promise((r) => { origin.listen(0, '127.0.0.1', r); });
    try {
      const name = 'proxy-check';
      const target = `http://127.0.0.1:${origin.address().port}/mcp?x=1`;
      assert.equal((await fetch(`${proxy.url}/control/${name}`, { method: 'POST', body: JSON.stringify({ target }) })).status, 204);
      const sent = {
        accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: 'Bearer abc',
        'mcp-session-id': 'session-7', 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/call', 'mcp-name': 'add_numbers',
        'mcp-param-emptyval': '', 'last-event-id': 'e0',
      };
      const res = await fetch(proxy.path(name), { method: 'POST', headers: sent, body: '{"jsonrpc":"2.0","id":3}' });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('mcp-session-id'), 'session-7');
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      const reader = res.body.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.equal(first, 'id: e1\nretry: 500\ndata: \n\n', 'the first event arrives before the second is written');
      release();
      let rest = '';
      for (let piece = await reader.read(); !piece.done; piece = await reader.read()) rest += new TextDecoder().decode(piece.value);
      assert.equal(rest, 'event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n');
      assert.deepEqual([got.method, got.url, got.body], ['POST', '/mcp?x=1', '{"jsonrpc":"2.0","id":3}']);
      for (const [header, value] of Object.entries(sent)) assert.equal(got.headers[header], value, header);
      assert.equal(got.headers.host, `127.0.0.1:${origin.address().port}`);
      const unset = await fetch(proxy.path('nowhere'), { method: 'POST', body: '{}' });
      assert.equal(unset.status, 502);
    } finally {
      origin.closeAllConnections();
      origin.close();
    }
  });

  for (const [i, run] of RUN.entries()) {
    test(`${run.scenario} at ${run.spec}`, async () => {
      const outcome = await outcomes[i];
      assert.ok(!outcome.error, outcome.error?.stack);
      const { code, out, checks, stdout, seen } = outcome;
      const context = `\n--- the suite's output ---\n${out}\n--- the command's output ---\n${stdout}\n--- through the proxy ---\n${JSON.stringify(seen)}`;
      assert.ok(checks, `no checks were saved${context}`);
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
        .map((c) => `${c.status} ${c.id} (${c.name}): ${c.errorMessage ?? c.description}`);
      assert.deepEqual(bad, [], context);
      for (const id of run.must) {
        const these = checks.filter((c) => c.id === id || c.name === id);
        assert.ok(these.length > 0 && these.every((c) => c.status === 'SUCCESS'),
          `${id}: ${JSON.stringify(these.map((c) => [c.name, c.status]))}${context}`);
      }
      assert.ok(seen.length > 0, `the scenario server was reached through the proxy${context}`);
      assert.doesNotMatch(out, /Client exited with code|Client timed out/, context);
      assert.equal(code, 0, context);
    });
  }
});
