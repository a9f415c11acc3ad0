// Where the Worker spends its time under load: starts the runtime in local workerd, loads one
// operation with autocannon while V8's sampling profiler runs in the Worker's isolate (through
// wrangler's inspector), writes the profile for Chrome DevTools, and prints the functions that
// took the most time, Rust ones by their own names (the uploaded wasm has no name section; they are
// read from build/index_bg.names.wasm, which scripts/build keeps beside it).
//
//   node tests/bench/profile.mjs [run_definition|get_playbook|tools/list|list_runs|create_playbook|reasoning|workflow] [seconds] [connections]
//
// reasoning profiles the bench's reasoning run with one tool call, on a runtime whose Anthropic is
// the stand-in and whose TOOL_SERVERS is the bench's tool server, as scripts/bench measures it.
// workflow profiles the bench's 20-step workflow, each run followed to its end, as the bench's row.
//
// Writes bench-results/profile-<operation>.cpuprofile. Needs a current build/ (it builds one if stale).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { buildIfStale, RUNTIME_INPUTS } from '../e2e/build.mjs';
import { ROOT, startRuntime } from '../e2e/harness.mjs';
import { load } from './load.mjs';
import { functionNames } from './size.mjs';
import { callTool, MCP_HEADERS, mcpFailed, playbookWithAddVat, rpcBody, toolBody } from './mcp.mjs';
import { prepare, runFailed, startSide, toolVars } from './tools.mjs';
import { workflowLoad, workflowSource } from './workflow.mjs';

const [operation = 'run_definition', seconds = '5', connections = '8'] = process.argv.slice(2);
const OPERATIONS = {
  run_definition: (pb) => toolBody('run_definition', { playbook: pb, type: 'computation', name: 'add-vat', input: { net: 100 } }),
  get_playbook: (pb) => toolBody('get_playbook', { playbook: pb }),
  'tools/list': () => rpcBody('tools/list'),
  list_runs: (pb) => toolBody('list_runs', { playbook: pb }),
};
// Operations whose every request needs a body of its own.
let made = 0;
const FRESH = {
  create_playbook: () => toolBody('create_playbook', { name: `profiled ${(made += 1)}` }),
};
const say = (message) => process.stderr.write(`[profile] ${message}\n`);

/** A Chrome DevTools Protocol session on the Worker's isolate. */
async function inspect(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  // wrangler's inspector proxy admits loopback hosts and origins only. (Node's WebSocket takes
  // headers as undici's extension of the standard constructor.)
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl, { headers: { origin: 'http://localhost' } });
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error('the inspector refused the connection')), { once: true });
  });
  let next = 0;
  const waiting = new Map();
  ws.addEventListener('message', ({ data }) => {
    const message = JSON.parse(String(data));
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  const send = (method, params = {}) => new Promise((resolve) => {
    next += 1;
    waiting.set(next, resolve);
    ws.send(JSON.stringify({ id: next, method, params }));
  });
  return { send, close: () => ws.close() };
}

/** Self and inclusive share of the samples, by function name, the top `n` of each. */
function summarize(profile, n = 25) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const names = functionNames();
  // V8 calls a wasm function with no name `$func<index>` (older: `wasm-function[<index>]`).
  const named = (fn) => names.get(Number(fn.match(/^(?:\$func(\d+)|wasm-function\[(\d+)\])$/)?.slice(1).find(Boolean) ?? NaN)) ?? fn;
  // Rust's v0 names say crate[hash]::…; the hashes are left out.
  const name = (node) => named(node.callFrame.functionName || '(anonymous)').replace(/::h[0-9a-f]{16}$/, '').replace(/\[[0-9a-f]{5,}\]/g, '');
  const own = new Map();
  const within = new Map();
  for (const [id, count] of hits) {
    own.set(name(nodes.get(id)), (own.get(name(nodes.get(id))) ?? 0) + count);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const fn = name(nodes.get(at));
      if (!seen.has(fn)) within.set(fn, (within.get(fn) ?? 0) + count);
      seen.add(fn);
    }
  }
  const total = profile.samples.length;
  const top = (map, filter) => [...map].filter(([fn]) => filter(fn)).sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([fn, count]) => `${((100 * count) / total).toFixed(1).padStart(5)}%  ${fn}`).join('\n');
  return `Own time (${total} samples):\n${top(own, () => true)}\n\nWith what they call, Rust functions:\n` +
    top(within, (fn) => fn.includes('::') && !fn.startsWith('js_sys::') && !fn.startsWith('wasm_bindgen::'));
}

/** The bench's 20-step workflow in a new playbook: a load that starts runs and follows each to its end. */
async function workflowLoadOf(base, name) {
  const playbook = await playbookWithAddVat(base, name);
  await callTool(base, 'create_definition', {
    playbook, type: 'workflow', name: 'twenty', source: workflowSource(),
    overview: 'Adds VAT twenty times over, each step on the gross amount of the step before.',
  });
  return ({ connections: c, seconds: s }) => workflowLoad(base, 'local', playbook, c, s);
}

/** Operations that need the stand-in model and the tool server beside the runtime. */
const WITH_TOOLS = {
  reasoning: (ready) => ({ body: ready.run, failed: runFailed }),
};

async function main() {
  if (!OPERATIONS[operation] && !FRESH[operation] && !WITH_TOOLS[operation] && operation !== 'workflow') {
    throw new Error(`no operation ${operation}; one of ${[...Object.keys(OPERATIONS), ...Object.keys(FRESH), ...Object.keys(WITH_TOOLS), 'workflow'].join(', ')}`);
  }
  buildIfStale({ label: 'runtime', command: 'scripts/build', inputs: RUNTIME_INPUTS, output: join(ROOT, 'build'), say });
  const work = join(ROOT, 'bench-results');
  const stateDir = join(work, 'state', 'profile');
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const side = WITH_TOOLS[operation] ? await startSide() : null;
  const rt = await startRuntime({ stateDir, vars: side ? toolVars(side) : {}, extraArgs: ['--log-level', 'warn'] });
  try {
    const name = `profile ${Date.now().toString(36)}`;
    const spec = { url: `${rt.url}/mcp`, method: 'POST', headers: MCP_HEADERS, failed: mcpFailed };
    let loading = load;
    if (operation === 'workflow') loading = await workflowLoadOf(rt.url, name);
    else if (side) Object.assign(spec, WITH_TOOLS[operation](await prepare(rt.url, side, name)));
    else if (FRESH[operation]) spec.makeBody = FRESH[operation];
    else spec.body = OPERATIONS[operation](await playbookWithAddVat(rt.url, name));
    await loading({ ...spec, connections: 4, seconds: 1 }); // warm the isolate before sampling
    const inspector = await inspect(rt.inspectorPort);
    await inspector.send('Profiler.enable');
    await inspector.send('Profiler.setSamplingInterval', { interval: 200 });
    await inspector.send('Profiler.start');
    const r = await loading({ ...spec, connections: Number(connections), seconds: Number(seconds) });
    const { result } = await inspector.send('Profiler.stop');
    inspector.close();
    const out = join(work, `profile-${operation.replace('/', '-')}.cpuprofile`);
    writeFileSync(out, JSON.stringify(result.profile));
    process.stdout.write(`${operation}, ${connections} connections, ${seconds} s: ${r.rps.toFixed(0)} req/s, ` +
      `p50 ${r.p50?.toFixed(1)} ms, p99 ${r.p99?.toFixed(1)} ms, ${r.failed + r.errors} failed\n\n${summarize(result.profile)}\n\n` +
      `The whole profile: ${out} (open it in Chrome DevTools, Performance).\n`);
  } finally {
    await rt.stop();
    await side?.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`profile failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
