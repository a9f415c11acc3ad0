// scripts/bench: the runtime's throughput and latency against the floors of this machine and against
// a TypeScript MCP server on the same workerd, a run that calls a tool and a search across many tool
// servers against theirs (tools.mjs), its size against Cloudflare's limits, and its start-up.
// Everything runs in local workerd (`wrangler dev`) on loopback; autocannon makes the load. The run is
// bounded: each measurement by its seconds, the seeding of stored rows by what time is left of the
// budget. It prints a Markdown table and writes it to BENCH_OUT (default bench-results/results.md).
//
// Environment: BENCH_QUICK=1 (two-second loads, 10,000 rows for the large lists), BENCH_SECONDS (per load),
// BENCH_BIG_ROWS (default 100000), BENCH_BUDGET_SECONDS (default 570), BENCH_OUT.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { basename, dirname, join } from 'node:path';

import { buildIfStale, RUNTIME_INPUTS } from '../e2e/build.mjs';
import { ROOT, startRuntime } from '../e2e/harness.mjs';
import { load } from './load.mjs';
import { multiplyRows, playbookStore } from './multiply.mjs';
import { callMethod, callTool, MCP_HEADERS, mcpFailed, playbookWithAddVat, rpcBody, toolBody } from './mcp.mjs';
import { plot } from './plot.mjs';
import { report } from './report.mjs';
import { uploadSize } from './size.mjs';
import { prepare, runFailed, SERVERS, serialFloor, startSide, TERMS, TOOLS, toolVars } from './tools.mjs';
import { workflowLoad, workflowSource } from './workflow.mjs';
import { CONNECTIONS, connectionBody, grow, growthReads, HISTORY_SIZES, prepareGrowth, VERSIONS } from './growth.mjs';
import { ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW, addVat } from '../e2e/fixtures.mjs';

const env = process.env;
const QUICK = env.BENCH_QUICK === '1';
const CFG = {
  quick: QUICK,
  seconds: Number(env.BENCH_SECONDS ?? (QUICK ? 2 : 3)),
  maxSeconds: QUICK ? 5 : 10,
  warmupSeconds: QUICK ? 0.3 : 1,
  concurrencies: [1, 8, 64],
  smallRows: 1000,
  bigRows: Number(env.BENCH_BIG_ROWS ?? (QUICK ? 10_000 : 100_000)),
  budgetSeconds: Number(env.BENCH_BUDGET_SECONDS ?? 570),
  seedConnections: 32,
  // The rows of how cost grows are read at the concurrencies of one client and of a few.
  growthConcurrencies: [1, 8],
  out: env.BENCH_OUT ?? join(ROOT, 'bench-results', 'results.md'),
};
const WORK = join(ROOT, 'bench-results');
// BENCH_ONLY=growth,tools (floors, ts, tools, runtime, growth, big) measures only those parts, to
// work on one of them; the report leaves the others out. big needs runtime.
const ONLY = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',')) : null;
const wanted = (part) => !ONLY || ONLY.has(part);
const STARTED = Date.now();
// The budget counts from the end of the builds: a first build from a fresh clone takes as long as
// cargo needs, which no budget of the bench's can bound; everything after it is bounded.
let DEADLINE = STARTED + CFG.budgetSeconds * 1000;
const BENCH = join(ROOT, 'tests', 'bench');
const ORG = 'local';
const RUN_TAG = Date.now().toString(36);
// How many times each Worker starts fresh for its start-up figure, the median of them.
const STARTS = QUICK ? 3 : 5;

function say(message) {
  const at = ((Date.now() - STARTED) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[bench ${at}s] ${message}\n`);
}

// ---- building ----

// ---- the servers ----

/** Starts one Worker in workerd with fresh state, and times its start-up to the first answer. */
async function serve(name, config, { keepState = false, vars = {} } = {}) {
  const stateDir = join(WORK, 'state', name);
  if (!keepState) rmSync(stateDir, { recursive: true, force: true });
  const t0 = performance.now();
  // Request logs off: with them on, wrangler's workerd posts a log line to its Node process after
  // every answer, which would measure wrangler's logger rather than the Worker.
  const rt = await startRuntime({ stateDir, config, vars, pollMs: 10, extraArgs: ['--log-level', 'warn'] });
  const startupMs = performance.now() - t0;
  say(`${name}: serving at ${rt.url}, first answer ${startupMs.toFixed(0)} ms after start`);
  return { ...rt, name, startupMs, stateDir };
}

/** Each Worker's start-up again, STARTS - 1 more times, one of each in turn so that the machine's
 * drift falls on all alike: one start of wrangler varies by hundreds of milliseconds (the same
 * build's first answer measured 1,026 and 1,654 ms in two runs). Each figure becomes the median. */
async function measureStartups(startup) {
  for (let i = 1; i < STARTS; i++) {
    for (const s of startup) {
      const again = await serve(`startup-${i}`, s.config);
      await again.stop();
      (s.samples ??= [s.ms]).push(again.startupMs);
    }
  }
  for (const s of startup) {
    const sorted = [...(s.samples ?? [s.ms])].sort((a, b) => a - b);
    s.ms = sorted[Math.floor(sorted.length / 2)];
    delete s.config;
  }
}

async function stopping(server, fn) {
  try {
    return await fn();
  } finally {
    writeFileSync(join(WORK, `${server.name}.log`), server.logs());
    await server.stop();
  }
}

// ---- measuring ----

/**
 * One operation at each concurrency, after a short warm-up: [{connections, rps, p50, p99, ...}].
 * `spec.warm`, where given, is awaited before the warm-up and before each load.
 */
async function measureAll(label, spec, concurrencies = CFG.concurrencies) {
  await spec.warm?.();
  await load({ ...spec, connections: 8, seconds: CFG.warmupSeconds });
  const out = [];
  await drain(spec);
  let before = null;
  for (const connections of concurrencies) {
    await spec.warm?.();
    // A request slower than the load is never counted, so a load lasts at least four rounds of
    // requests at the throughput the lower concurrency reached, up to maxSeconds.
    const seconds = before === null ? CFG.seconds
      : Math.min(CFG.maxSeconds, Math.max(CFG.seconds, (4 * connections) / Math.max(before, 1)));
    const r = await load({ ...spec, connections, seconds });
    before = r.rps;
    await drain(spec);
    say(`${label} c=${connections}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50?.toFixed(2)} ms, p99 ${r.p99?.toFixed(2)} ms` +
      (r.failed || r.errors ? `, ${r.failed} failed, ${r.errors} errors` : ''));
    out.push({ connections, ...r });
  }
  return out;
}

/**
 * Waits for the work a load left behind: autocannon stops at its time and drops the requests in
 * flight, but workerd goes on serving them, and the next load must not pay for them. One more
 * request of the same kind queues behind them; when it answers, they are done.
 */
async function drain(spec) {
  try {
    const res = await fetch(spec.url, {
      method: spec.method ?? (spec.body || spec.makeBody ? 'POST' : 'GET'),
      headers: spec.headers,
      body: spec.makeBody ? spec.makeBody() : spec.body,
      signal: AbortSignal.timeout(60_000),
    });
    await res.arrayBuffer();
  } catch (error) {
    say(`drain after a load: ${error.message}`);
  }
}

/** The floors that need no other process: the JavaScript Worker's, then the Rust Worker's. */
async function measureFloors(floorRust, label) {
  const floors = {};
  const startupMs = {};
  const js = await serve('floor-js', join(BENCH, 'floor-js', 'wrangler.toml'));
  startupMs.js = js.startupMs;
  await stopping(js, async () => {
    floors.static = await measureAll(`${label} js static`, { url: `${js.url}/` });
  });
  const rust = await serve('floor-rust', join(floorRust, 'wrangler.toml'));
  startupMs.rust = rust.startupMs;
  await stopping(rust, async () => {
    floors.rustStatic = await measureAll(`${label} rust static`, { url: `${rust.url}/static` });
    floors.read = await measureAll(`${label} rust DO read`, { url: `${rust.url}/read` });
    floors.write = await measureAll(`${label} rust DO write`, { url: `${rust.url}/write` });
    floors.create = await measureAll(`${label} rust DO create`, { url: `${rust.url}/create` });
    floors.chain = await measureAll(`${label} rust run_definition's chain`, { url: `${rust.url}/chain` });
    floors.nested = await measureAll(`${label} rust create_playbook's chain`, { url: `${rust.url}/nested` });
  });
  return { floors, startupMs };
}

/** Two measurements of one floor as one: at each concurrency, the mean of each figure. */
function meanSeries(before, after) {
  return before.map((b) => {
    const a = after.find((m) => m.connections === b.connections);
    if (!a) return b;
    const mean = (key) => (b[key] + a[key]) / 2;
    return { ...b, rps: mean('rps'), p50: mean('p50'), p99: mean('p99') };
  });
}

function mcpSpec(base, body) {
  return { url: `${base}/mcp`, method: 'POST', headers: MCP_HEADERS, body, failed: mcpFailed };
}

function mcpSpecFresh(base, makeBody) {
  return { url: `${base}/mcp`, method: 'POST', headers: MCP_HEADERS, makeBody, failed: mcpFailed };
}

let named = 0;
const freshName = () => `bench ${RUN_TAG} ${(named += 1)}`;

/** How long the loads still to come will take, so seeding knows what it may spend. */
function loadsSeconds(operations) {
  return operations * (CFG.warmupSeconds + CFG.concurrencies.length * (CFG.seconds + 1.5) + 3);
}

// ---- seeding ----

const playbookWithFunction = (base, name) => playbookWithAddVat(base, `${name} ${RUN_TAG}`);

/**
 * Stores rows through the public HTTP API, many requests at once, in steps bounded in count, until
 * `target` rows are stored or the time until `until` (ms) is spent. `kind` is `runs` (each a
 * run_definition of the computation: one run and its two events) or `events` (publish_event).
 */
async function seed(base, playbook, kind, target, until) {
  const url = kind === 'runs'
    ? `${base}/v1/orgs/${ORG}/playbooks/${playbook}/definitions/computation/add-vat/run`
    : `${base}/v1/orgs/${ORG}/playbooks/${playbook}/events`;
  const body = kind === 'runs' ? '{"input":{"net":100}}' : '{"kind":"bench_seeded","data":{"n":1}}';
  let stored = 0;
  let failed = 0;
  let spent = 0;
  const t0 = Date.now();
  while (stored < target) {
    const left = (until - Date.now()) / 1000;
    const rate = spent > 0 ? stored / spent : 0;
    // A small first step learns the rate; later steps take what the rate says fits in the time left.
    let step = Math.min(target - stored, rate > 0 ? 5000 : 8 * CFG.seedConnections);
    if (rate > 0) step = Math.min(step, Math.floor(rate * left * 0.9));
    if (left <= 1 || step < Math.min(50, target - stored)) break;
    const r = await load({
      url, method: 'POST', headers: { 'content-type': 'application/json' }, body,
      connections: CFG.seedConnections, amount: step, timeoutSeconds: 60,
    });
    stored += r.ok;
    failed += r.failed + r.errors;
    spent += r.seconds;
    if (r.ok === 0) break;
  }
  const seconds = (Date.now() - t0) / 1000;
  say(`seeded ${stored} ${kind} in ${seconds.toFixed(1)} s (${(stored / seconds).toFixed(0)}/s)${failed ? `, ${failed} failed` : ''}`);
  return { kind, target, stored, failed, seconds };
}

/** `list_runs` and `list_playbook_events` reading their first page, at each concurrency. */
async function measureLists(base, { runsPb, eventsPb }, size, runs, events) {
  const listRuns = await measureAll(`runtime list_runs (${runs} runs)`, mcpSpec(base, toolBody('list_runs', { playbook: runsPb })));
  const listEvents = await measureAll(`runtime list_playbook_events (${events} events)`,
    mcpSpec(base, toolBody('list_playbook_events', { playbook: eventsPb })));
  return { size, runs, events, listRuns, listEvents };
}

/**
 * `list_connections` with a few connections and with CONNECTIONS, each added through
 * `add_connection` as a person would, of the bench's tool server.
 */
async function measureConnections(base, url) {
  const makeBody = connectionBody(url);
  const out = [];
  let stored = 0;
  for (const target of [50, CONNECTIONS]) {
    const t0 = Date.now();
    const r = await load({
      url: `${base}/mcp`, method: 'POST', headers: MCP_HEADERS, makeBody, failed: mcpFailed,
      connections: 8, amount: target - stored, timeoutSeconds: 60,
    });
    stored += r.ok;
    say(`added ${r.ok} connections (${stored} in all) in ${((Date.now() - t0) / 1000).toFixed(1)} s` +
      (r.failed + r.errors ? `, ${r.failed + r.errors} failed` : ''));
    const listed = await callTool(base, 'list_connections', {});
    out.push({
      stored, listed: listed.connections?.length,
      data: await measureAll(`runtime list_connections (${stored} connections)`, mcpSpec(base, toolBody('list_connections', {})), CFG.growthConcurrencies),
    });
  }
  return out;
}

/** The growth rows (growth.mjs): a 50-step workflow run's history at its own size, 2,000 and 10,000 events. */
async function measureGrowth() {
  const first = await serve('runtime-growth', join(ROOT, 'wrangler.toml'));
  let prepared;
  let playbook;
  const sizes = [];
  const measureReads = async (base, label) => {
    const reads = growthReads(playbook, prepared.runId);
    const out = {};
    for (const [key, read] of Object.entries(reads)) {
      out[key] = await measureAll(`runtime ${read.tool} (${label})`, mcpSpec(base, toolBody(read.tool, read.args)), CFG.growthConcurrencies);
    }
    return out;
  };
  await stopping(first, async () => {
    playbook = await playbookWithFunction(first.url, 'growth');
    // Each version the same rate, written differently: a changed document is a new version.
    prepared = await prepareGrowth(first.url, ORG, playbook, {
      sourceOf: (i) => addVat(`0.2${'0'.repeat(i)}`), overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM,
    });
    say(`a ${prepared.runId} tree of 50 steps holds ${prepared.events} events`);
    sizes.push({ events: prepared.events, versions: prepared.versions, reads: await measureReads(first.url, `${prepared.events} events`) });
  });
  let events = prepared.events;
  let versions = prepared.versions;
  for (const target of HISTORY_SIZES) {
    const eventTimes = Math.ceil(target / events);
    const versionTimes = target === HISTORY_SIZES.at(-1) ? Math.ceil(VERSIONS / versions) : 1;
    const grown = await grow(first.stateDir, playbook, eventTimes, versionTimes);
    events = grown.events ?? events;
    versions = grown.versions ?? versions;
    const again = await serve('runtime-growth', join(ROOT, 'wrangler.toml'), { keepState: true });
    await stopping(again, async () => {
      sizes.push({ events, versions, reads: await measureReads(again.url, `${events} events, ${versions} versions`) });
    });
  }
  return { steps: 50, sizes };
}

// ---- the run ----

async function main() {
  mkdirSync(WORK, { recursive: true });
  mkdirSync(dirname(CFG.out), { recursive: true });
  const results = {
    cfg: CFG,
    machine: {
      cores: os.cpus().length,
      model: os.cpus()[0]?.model ?? 'unknown',
      load: os.loadavg().map((v) => v.toFixed(2)).join(' '),
      node: process.version,
      commit: gitCommit(),
      date: new Date().toISOString(),
    },
    builds: [],
    floors: {},
    ts: {},
    runtime: {},
    startup: [],
    seeding: [],
    notes: [],
  };

  // Builds: the runtime by scripts/build, the Rust floor by the same recipe.
  results.builds.push(buildIfStale({
    label: 'runtime', command: 'scripts/build', inputs: RUNTIME_INPUTS, output: join(ROOT, 'build'), say,
  }));
  const floorRust = join(BENCH, 'floor-rust');
  if (wanted('floors')) results.builds.push(buildIfStale({
    label: 'Rust floor', command: 'tests/bench/build-floor',
    inputs: ['src', 'Cargo.toml', 'Cargo.lock'].map((p) => join(floorRust, p)), output: join(floorRust, 'build'), say,
  }));

  DEADLINE = Date.now() + CFG.budgetSeconds * 1000;

  results.wasmCompile = await wasmCompile(join(ROOT, 'build', 'index_bg.wasm'));
  say(`V8 compiles the wasm in ${results.wasmCompile.ms.toFixed(1)} ms`);

  // Sizes of the upload, as wrangler would send it.
  say('sizing the uploads (wrangler deploy --dry-run)');
  results.size = {
    runtime: uploadSize(join(ROOT, 'wrangler.toml'), join(WORK, 'upload', 'runtime')),
    ts: uploadSize(join(BENCH, 'ts-mcp', 'wrangler.toml'), join(WORK, 'upload', 'ts-mcp')),
  };
  // The builds and the sizing leave megabytes to write back to the disk, which would slow the
  // first floors' SQLite writes: written out now, before anything is measured.
  execFileSync('sync');

  // The runtime's own rows keep their state for the large lists after them.
  let rt;
  const listed = {};
  if (wanted('floors')) {
    // 1. The floors.
    const first = await measureFloors(floorRust, 'floor');
    results.startup.push({ name: 'JavaScript floor (no Durable Object)', ms: first.startupMs.js, floor: true, config: join(BENCH, 'floor-js', 'wrangler.toml') });
    results.startup.push({ name: 'Rust floor (one Durable Object)', ms: first.startupMs.rust, config: join(floorRust, 'wrangler.toml') });
    Object.assign(results.floors, first.floors);
  }

  if (wanted('ts')) {
    // 2. The TypeScript MCP server.
    const ts = await serve('ts-mcp', join(BENCH, 'ts-mcp', 'wrangler.toml'));
    results.startup.push({ name: 'TypeScript MCP server (SDK, one Durable Object)', ms: ts.startupMs, config: join(BENCH, 'ts-mcp', 'wrangler.toml') });
    await stopping(ts, async () => {
      const pb = await callTool(ts.url, 'create_playbook', { name: freshName() });
      await callTool(ts.url, 'get_playbook', { playbook: pb.id });
      await callMethod(ts.url, 'tools/list');
      results.ts['tools/list'] = await measureAll('ts tools/list', mcpSpec(ts.url, rpcBody('tools/list')));
      results.ts.get_playbook = await measureAll('ts get_playbook',
        mcpSpec(ts.url, toolBody('get_playbook', { playbook: pb.id })));
      results.ts.create_playbook = await measureAll('ts create_playbook',
        mcpSpecFresh(ts.url, () => toolBody('create_playbook', { name: freshName() })));
    });
  }

  if (wanted('tools')) {
    // 3. The tool rows, on a runtime of their own whose TOOL_SERVERS names the bench's tool server
    // (20 addresses of 50 tools) and whose Anthropic is the stand-in, both in a process of their own:
    // a reasoning run with one tool call, and search across the 20 servers, measured warm. Then the
    // floors of the run's parts, alone: the stand-in's two requests and the tool server's one call.
    const side = await startSide();
    try {
      const withTools = await serve('runtime-tools', join(ROOT, 'wrangler.toml'), { vars: toolVars(side) });
      let ready;
      await stopping(withTools, async () => {
        const base = withTools.url;
        ready = await prepare(base, side, freshName());
        results.tools = { servers: SERVERS, tools: TOOLS, terms: TERMS };
        results.tools.run = await measureAll('runtime reasoning run with one tool call',
          { ...mcpSpec(base, ready.run), failed: runFailed });
        results.tools.search = await measureAll(`runtime search (${SERVERS} servers of ${TOOLS} tools, warm)`,
          { ...mcpSpec(base, ready.search), warm: ready.warmSearch });
        results.connections = await measureConnections(base, `${side.tools}/s01/mcp`);
      });
      results.floors.modelFirst = await measureAll('floor stand-in model, first request', ready.modelFirst);
      results.floors.modelSecond = await measureAll('floor stand-in model, second request', ready.modelSecond);
      results.floors.toolCall = await measureAll('floor tool server, one call', ready.toolCall);
      if (wanted('floors')) {
        // The run's whole chain with the least work in each part: the Rust floor makes the same
        // object calls and writes, and sends the three requests as the runtime sent them.
        const rust = await serve('floor-rust-steps', join(floorRust, 'wrangler.toml'));
        await stopping(rust, async () => {
          const steps = [ready.modelFirst, ready.toolCall, ready.modelSecond].map(({ url, method, headers, body }) => ({ url, method, headers, body }));
          results.floors.toolChain = await measureAll('floor rust, a reasoning run\'s chain', {
            url: `${rust.url}/run-steps`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ steps }),
          });
        });
      }
    } finally {
      await side.stop();
  }

  }

  if (wanted('runtime')) {
    // 4. The runtime, from a cold workerd with empty state.
    rt = await serve('runtime', join(ROOT, 'wrangler.toml'));
    results.startup.push({ name: 'Auto Runtime (this Worker)', ms: rt.startupMs, runtime: true, config: join(ROOT, 'wrangler.toml') });
    await stopping(rt, async () => {
      const base = rt.url;
      const tools = await callMethod(base, 'tools/list');
      results.runtime.toolCount = tools.tools.length;
      const list = await fetch(`${base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: rpcBody('tools/list') });
      results.runtime.listBytes = (await list.arrayBuffer()).byteLength;
      const bench = await playbookWithFunction(base, 'bench');
      const read = await fetch(`${base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: toolBody('get_playbook', { playbook: bench }) });
      results.runtime.readBytes = (await read.arrayBuffer()).byteLength;
      await callTool(base, 'run_definition', { playbook: bench, type: 'computation', name: 'add-vat', input: { net: 100 } });
      const R = results.runtime;
      R['tools/list'] = await measureAll('runtime tools/list', mcpSpec(base, rpcBody('tools/list')));
      R.get_playbook = await measureAll('runtime get_playbook', mcpSpec(base, toolBody('get_playbook', { playbook: bench })));
      // The same two reads with an API key of the org, beside local mode: what verifying a key costs
      // once this isolate has seen it.
      const made = await fetch(`${base}/v1/orgs/local/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench-${RUN_TAG}`, scopes: ['org:read', 'org:write', 'playbook:read', 'playbook:write'] }),
      }).then((r) => r.json());
      if (!made.key) throw new Error(`no key was made: ${JSON.stringify(made).slice(0, 300)}`);
      const keyed = (body) => ({ ...mcpSpec(base, body), headers: { ...MCP_HEADERS, authorization: `Bearer ${made.key}` } });
      R['tools/list key'] = await measureAll('runtime tools/list with a key', keyed(rpcBody('tools/list')));
      R['get_playbook key'] = await measureAll('runtime get_playbook with a key', keyed(toolBody('get_playbook', { playbook: bench })));
      R.create_playbook = await measureAll('runtime create_playbook',
        mcpSpecFresh(base, () => toolBody('create_playbook', { name: freshName() })));
      R.run_definition = await measureAll('runtime run_definition', mcpSpec(base,
        toolBody('run_definition', { playbook: bench, type: 'computation', name: 'add-vat', input: { net: 100 } })));
      // A 20-step workflow from its start to its end; report.mjs divides by 20 for the cost of a step.
      await callTool(base, 'create_definition', {
        playbook: bench, type: 'workflow', name: 'twenty', source: workflowSource(),
        overview: 'Adds VAT twenty times over, each step on the gross amount of the step before.',
      });
      R.workflow = [];
      for (const connections of CFG.concurrencies) {
        const m = await workflowLoad(base, ORG, bench, connections, Math.max(CFG.seconds, 5));
        say(`runtime 20-step workflow c=${connections}: ${m.rps.toFixed(1)} runs/s, p50 ${m.p50} ms, p99 ${m.p99} ms` +
          (m.failed ? `, ${m.failed} failed` : ''));
        R.workflow.push(m);
      }

      // Pages of runs and events with 1,000 rows stored through the API: runs in one playbook,
      // published events in another, so each list holds only its own rows.
      listed.runsPb = await playbookWithFunction(base, 'runs');
      listed.eventsPb = await playbookWithFunction(base, 'events');
      // What the loads after this seeding will take, and a margin to copy rows and restart.
      // (With the floors: the list's bytes and the five floors measured again after these rows.)
      const until = DEADLINE - (loadsSeconds((CFG.bigRows ? 4 : 2) + (wanted('floors') ? 6 : 0)) + 60) * 1000;
      const runs = await seed(base, listed.runsPb, 'runs', CFG.smallRows, Date.now() + Math.max(0, until - Date.now()) / 2);
      const events = await seed(base, listed.eventsPb, 'events', CFG.smallRows, until);
      results.seeding.push({ size: 'small', runs, events });
      R.lists = [await measureLists(base, listed, 'small', runs.stored, events.stored)];
    });
  }

  if (wanted('floors') && results.runtime.listBytes) {
    // 4a. What the list's bytes cost workerd alone: the JavaScript floor reading the same request
    // and answering as many bytes, beside the runtime's tools/list.
    const js = await serve('floor-js-bytes', join(BENCH, 'floor-js', 'wrangler.toml'));
    await stopping(js, async () => {
      results.floors.listBytes = await measureAll(`floor js, ${results.runtime.listBytes} bytes answered`, {
        url: `${js.url}/answer?bytes=${results.runtime.listBytes}`, method: 'POST', headers: MCP_HEADERS, body: rpcBody('tools/list'),
      });
    });
    // The same for get_playbook: the Rust floor reading its request, making the DO read and
    // answering as many bytes as an event stream.
    const rust = await serve('floor-rust-bytes', join(floorRust, 'wrangler.toml'));
    await stopping(rust, async () => {
      results.floors.readBytes = await measureAll(`floor rust, read and ${results.runtime.readBytes} bytes answered`, {
        url: `${rust.url}/read-answer?bytes=${results.runtime.readBytes}`, method: 'POST', headers: MCP_HEADERS,
        body: toolBody('get_playbook', { playbook: 'pb_floor' }),
      });
    });
  }

  if (wanted('floors') && wanted('runtime')) {
    // 4b. The floors again: this machine's speed drifts by tens of percent over minutes, and the
    // runtime's rows ran minutes after the floors. Each ratio divides by the mean of the two.
    const again = await measureFloors(floorRust, 'floor again');
    results.floorsBefore = {};
    results.floorsAfter = again.floors;
    for (const [key, after] of Object.entries(again.floors)) {
      results.floorsBefore[key] = results.floors[key];
      results.floors[key] = meanSeries(results.floors[key], after);
    }
  }
  if (results.floors.modelFirst && results.floors.create) {
    const F = results.floors;
    F.toolRun = serialFloor([[F.modelFirst, 1], [F.modelSecond, 1], [F.toolCall, 1], [F.create, 1]], CFG.concurrencies);
  }

  if (wanted('growth')) {
    // 4c. How cost grows with a run's history and a definition's versions, on a runtime of its own.
    results.growth = await measureGrowth();
  }

  if (wanted('big') && rt) {
    // 5. The same pages with 100 times the rows, copied inside the playbooks' stores (multiply.mjs
    // says why), on the same state after a restart.
    const { runsPb, eventsPb } = listed;
    const seededRuns = results.seeding[0]?.runs.stored ?? 0;
    const seededEvents = results.seeding[0]?.events.stored ?? 0;
    if (CFG.bigRows > 0 && seededRuns > 0 && seededEvents > 0) {
      const t0 = performance.now();
      const runsTimes = Math.ceil(CFG.bigRows / seededRuns);
      const eventsTimes = Math.ceil(CFG.bigRows / seededEvents);
      const copied = {
        runs: multiplyRows(playbookStore(rt.stateDir, runsPb), ['runs', 'run_records'], runsTimes),
        events: multiplyRows(playbookStore(rt.stateDir, eventsPb), ['events'], eventsTimes),
        runsTimes,
        eventsTimes,
      };
      copied.seconds = (performance.now() - t0) / 1000;
      say(`copied the rows: ${copied.runs} runs, ${copied.events} events in ${copied.seconds.toFixed(1)} s`);
      const again = await serve('runtime', join(ROOT, 'wrangler.toml'), { keepState: true });
      await stopping(again, async () => {
        const t1 = performance.now();
        await callTool(again.url, 'list_runs', { playbook: runsPb });
        copied.firstPageMs = performance.now() - t1;
        results.seeding.push({ size: 'big', copied });
        results.runtime.lists.push(await measureLists(again.url, listed, 'big', copied.runs, copied.events));
      });
    }
  }

  if (results.startup.length > 0) {
    // 6. Each Worker's start-up again, in turn, for a median of each.
    await measureStartups(results.startup);
    say(`start-ups (median of ${STARTS}): ${results.startup.map((s) => `${s.name} ${s.ms.toFixed(0)} ms`).join(', ')}`);
  }

  results.machine.loadAfter = os.loadavg().map((v) => v.toFixed(2)).join(' ');
  results.seconds = (Date.now() - STARTED) / 1000;
  // The plot goes beside the table, under the same name, so a page that moves keeps its picture.
  const plotPath = CFG.out.replace(/\.md$/, '') + '.svg';
  results.plotFile = basename(plotPath);
  writeFileSync(plotPath, plot(results));
  const markdown = report(results);
  writeFileSync(CFG.out, markdown);
  writeFileSync(join(WORK, 'results.json'), JSON.stringify(results, null, 2));
  process.stdout.write(markdown);
  say(`wrote ${CFG.out} (${results.seconds.toFixed(0)} s in all)`);
}

/**
 * The Worker's own part of a cold start: V8 (the engine workerd runs) compiling the wasm, the
 * median of five, each from the bytes.
 */
async function wasmCompile(file) {
  const bytes = readFileSync(file);
  const times = [];
  for (let i = 0; i < 5; i += 1) {
    const t0 = performance.now();
    await WebAssembly.compile(bytes);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { bytes: bytes.length, ms: times[2] };
}

function gitCommit() {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=7'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
