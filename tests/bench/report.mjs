// The bench's results as Markdown: the floors, the runtime's rows with their ratios, the TypeScript
// server, the sizes, the start-up, and how the stored rows were seeded. Every ratio divides this
// runtime's figure by the other's, both measured in the same run.
import { LIMIT_FREE, LIMIT_PAID } from './size.mjs';
import { judged, targets } from './targets.mjs';
import { cloudflare, growth } from './report_growth.mjs';

/** The upload the issue asks for, gzip, and the least start-up share of the JavaScript floor's. */
const UPLOAD_TARGET = 1.5 * 1024 * 1024;
const STARTUP_MOST = 1.2;

const int = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const ms = (n) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : '—');
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : '—');
const bytes = (n) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : `${(n / 1024).toFixed(1)} KiB`);
const pct = (n, of) => `${((100 * n) / of).toFixed(0)}%`;

/** "a · b · c": req/s, p50 and p99 of one measurement divided by another's. */
function ratios(m, base) {
  if (!base) return '—';
  return `${ratio(m.rps, base.rps)} · ${ratio(m.p50, base.p50)} · ${ratio(m.p99, base.p99)}`;
}

function atConcurrency(series, connections) {
  return series?.find((m) => m.connections === connections);
}

const FLOORS = {
  static: { name: 'no state', what: 'JavaScript Worker answering a fixed JSON; no Durable Object, no wasm' },
  listBytes: { name: 'the list\'s bytes', what: 'the JavaScript floor reading the `tools/list` request and answering as many bytes as the runtime\'s list' },
  readBytes: { name: 'a read on the MCP wire', what: 'the Rust floor reading the `get_playbook` request, making the DO read, and answering as many bytes as the runtime\'s answer as an event stream' },
  rustStatic: { name: 'no state (Rust)', what: 'the Rust floor Worker answering a fixed JSON, no Durable Object' },
  read: { name: 'DO read', what: 'Rust Worker → Durable Object → one SQLite row read' },
  write: { name: 'DO write', what: 'Rust Worker → Durable Object → one SQLite row written and read' },
  create: { name: 'DO create', what: 'Rust Worker → a new Durable Object each time → its table made, one row written and read' },
  chain: { name: 'three calls (run_definition\'s)', what: 'Rust Worker → DO read; then → a new Durable Object, which writes its row and then has the first object write, before it answers' },
  nested: { name: 'two calls nested (create_playbook\'s)', what: 'Rust Worker → Durable Object, which has a new Durable Object write its row, then writes its own' },
  modelFirst: { name: 'model, 1st request', what: 'the Anthropic stand-in alone, answering the run\'s first request (it asks for the tool), as the runtime sent it' },
  modelSecond: { name: 'model, 2nd request', what: 'the Anthropic stand-in alone, answering the run\'s second request (it reads the tool\'s answer)' },
  toolCall: { name: 'tool call', what: 'the bench\'s tool server alone (node:http), answering the run\'s tools/call as the runtime sent it' },
  toolChain: { name: 'a reasoning run\'s chain', what: 'Rust Worker → DO read; then → a new Durable Object, which writes its row, sends the three requests above one after another, writing its row after each answer, and then has the first object write, before it answers' },
  toolRun: { name: 'model ×2 + tool + DO create', what: 'the three above and one DO create, one after another: latencies added, req/s 1 / Σ (1 / req/s)' },
};

export function report(r) {
  const { cfg, machine } = r;
  const lines = [];
  const push = (...l) => lines.push(...l);
  const conc = cfg.concurrencies;

  push(`# Auto Runtime bench`, '');
  push(`${machine.date} · commit ${machine.commit} · ${machine.cores} cores (${machine.model}) · Node ${machine.node} · ` +
    `load average ${machine.load} before, ${machine.loadAfter} after · ${cfg.quick ? '**quick mode** · ' : ''}` +
    `each load ${cfg.seconds} s per concurrency (${conc.join(', ')}), longer (up to ${cfg.maxSeconds} s) where four rounds of requests would not fit, after a ${cfg.warmupSeconds} s warm-up · ` +
    `whole run ${r.seconds.toFixed(0)} s, of which builds ${r.builds.reduce((t, b) => t + b.seconds, 0).toFixed(0)} s.`, '');
  push('Everything ran in local workerd (`wrangler dev`) on 127.0.0.1, loaded by autocannon from the same machine ' +
    '(the load generator shares the cores). Latencies in milliseconds. Each ratio is this runtime\'s figure divided ' +
    'by the other\'s, given as req/s · p50 · p99: below 1 for req/s, above 1 for latency, means slower.', '');

  // ---- the targets, read in a minute ----
  push('## Against the targets', '');
  push('Each row as a share of its floor in this run (req/s divided by the floor\'s; for a latency, the floor\'s p50 ' +
    'divided by ours), so 1.00 is the floor and higher is faster. ✓ meets the target, ✗ misses it (the target in brackets).', '');
  if (r.plotFile) push(`![Each row's share of its floor at each concurrency, with its target](${r.plotFile})`, '');
  push('| Row | Floor | ' + conc.map((c) => `Conc. ${c}`).join(' | ') + ' | What bounds it |');
  push('|---|---|' + conc.map(() => '--:').join('|') + '|---|');
  for (const t of targets(r)) {
    push(`| ${t.label} | ${t.floor} | ` + conc.map((c) => judged(t.ratio(c), t.least[c])).join(' | ') + ` | ${t.bound} |`);
  }
  const upload = r.size?.runtime?.gzip;
  const jsStartup = r.startup.find((s) => s.floor)?.ms;
  const ownStartup = r.startup.find((s) => s.runtime)?.ms;
  push('');
  if (upload) {
    push(`- The upload: ${bytes(upload)} gzip, ${upload <= UPLOAD_TARGET ? '✓ within' : '✗ over'} the target of ${bytes(UPLOAD_TARGET)} ` +
      `(Cloudflare's limit: ${bytes(LIMIT_FREE)} on the free plan).`);
  }
  if (jsStartup && ownStartup) {
    const times = ownStartup / jsStartup;
    push(`- Start-up: the first answer of a cold workerd ${times.toFixed(2)} × the JavaScript floor's, ` +
      `${times <= STARTUP_MOST ? '✓ within' : '✗ over'} ${STARTUP_MOST.toFixed(1)} ×.`);
  }
  if (r.wasmCompile) {
    push(`- The Worker's own start-up: V8 compiles its wasm (${bytes(r.wasmCompile.bytes)}) in ${ms(r.wasmCompile.ms)} ms on this ` +
      'machine, against Cloudflare\'s limit of 1 s of CPU for a Worker\'s start-up.');
  }
  push('');

  // ---- the runtime ----
  push('## The runtime against its floors and against a TypeScript MCP server', '');
  push('| Operation | Floor | Conc. | req/s | p50 | p99 | ÷ floor | ÷ TypeScript | Failed |');
  push('|---|---|--:|--:|--:|--:|--:|--:|--:|');
  const R = r.runtime;
  const T = r.tools ?? {};
  const rows = [
    { label: `\`tools/list\` (${R.toolCount ?? '?'} tools)`, data: R['tools/list'], floor: 'static', ts: r.ts['tools/list'] },
    { label: '`get_playbook`', data: R.get_playbook, floor: 'read', ts: r.ts.get_playbook },
    { label: '`create_playbook`', data: R.create_playbook, floor: 'create', ts: r.ts.create_playbook },
    { label: '`run_definition` of a computation', data: R.run_definition, floor: 'create' },
    { label: '20-step workflow, start to finish', data: R.workflow, floor: 'create', perStep: 20 },
    { label: '`run_definition` of a reasoning function with one tool call', data: T.run, floor: 'toolRun' },
    { label: `\`search\` across ${T.servers ?? '?'} servers of ${T.tools ?? '?'} tools, warm`, data: T.search, floor: 'static' },
  ];
  for (const list of R.lists ?? []) {
    rows.push({ label: `\`list_runs\`, one page of 20, ${int(list.runs)} runs stored`, data: list.listRuns, floor: 'read' });
  }
  for (const list of R.lists ?? []) {
    rows.push({ label: `\`list_playbook_events\`, one page of 50, ${int(list.events)} events stored`, data: list.listEvents, floor: 'read' });
  }
  if (!R.lists?.some((l) => l.size === 'big')) {
    rows.push({ label: '`list_runs`, `list_playbook_events` with many rows stored', data: { unavailable: 'not measured (BENCH_BIG_ROWS=0, or no rows seeded)' } });
  }
  for (const row of rows) {
    if (!row.data || row.data.unavailable) {
      push(`| ${row.label} | ${row.floor ? FLOORS[row.floor].name : '—'} | — | ${row.data?.unavailable ?? 'not measured'} | | | | | |`);
      continue;
    }
    for (const c of conc) {
      const m = atConcurrency(row.data, c);
      const floor = atConcurrency(r.floors[row.floor], c);
      const ts = atConcurrency(row.ts, c);
      push(`| ${c === conc[0] ? row.label : ''} | ${c === conc[0] ? FLOORS[row.floor].name : ''} | ${c} | ${int(m.rps)} | ` +
        `${ms(m.p50)} | ${ms(m.p99)} | ${ratios(m, floor)} | ${ts ? ratios(m, ts) : '—'} | ${m.failed + m.errors} |`);
    }
  }
  push('');

  // What one step of a workflow costs: the run's own start-to-end time, divided by its steps.
  const perStep = rows.find((row) => row.perStep && Array.isArray(row.data));
  if (perStep) {
    push('A workflow run\'s latency is the time from its start to its end that its own record gives; a step ' +
      'starts its function as a run of its own in its own Durable Object. Per step, p50 · p99 in ms: ' +
      conc.map((c) => {
        const m = atConcurrency(perStep.data, c);
        return m ? `conc. ${c}: ${ms(m.p50 / perStep.perStep)} · ${ms(m.p99 / perStep.perStep)}` : null;
      }).filter(Boolean).join('; ') + '.', '');
  }

  // How the tool rows were measured.
  if (T.run || T.search) {
    push(`The tool rows ran on a runtime of their own whose \`TOOL_SERVERS\` names ${T.servers} servers of the bench's tool server ` +
      `(\`tests/bench/tool_server.mjs\`, node:http, answering at once, ${T.tools} tools each) and whose Anthropic is the stand-in of ` +
      'the end-to-end suite, both in a process of their own. The run asks the stand-in, calls `s01/echo`, and asks again; its floor adds ' +
      'the stand-in\'s own time for those two requests and the tool server\'s for the call, each the very request the runtime sent, ' +
      `replayed alone, and one DO create. \`search\` (terms \`${T.terms}\`, matching five tools of each server) is measured warm: a ` +
      'search before each load finds every server\'s list kept, as an isolate keeps them 60 s; a cold one lists all the servers first.', '');
  }

  // What a key costs beside local mode, where both were measured.
  if (R['tools/list key'] && R['get_playbook key']) {
    push('### With an API key, against local mode', '');
    push('With a key divided by local mode, req/s · p50 · p99 (the target: req/s at least 0.90, so a key seen before costs no Durable Object call).', '');
    push('| Operation | ' + conc.map((c) => `Conc. ${c}`).join(' | ') + ' |');
    push('|---|' + conc.map(() => '--:').join('|') + '|');
    for (const op of ['tools/list', 'get_playbook']) {
      push(`| \`${op}\` | ` + conc.map((c) => ratios(atConcurrency(R[`${op} key`], c), atConcurrency(R[op], c))).join(' | ') + ' |');
    }
    push('');
  }

  // Whether a page costs more with more rows stored.
  const small = R.lists?.find((l) => l.size === 'small');
  const big = R.lists?.find((l) => l.size === 'big');
  if (small && big) {
    push(`### A page with ${int(big.runs)} runs / ${int(big.events)} events stored, against ${int(small.runs)} / ${int(small.events)}`, '');
    push('Big divided by small, req/s · p50 · p99 (1.00 · 1.00 · 1.00: the cost does not grow with the rows).', '');
    push('| Operation | ' + conc.map((c) => `Conc. ${c}`).join(' | ') + ' |');
    push('|---|' + conc.map(() => '--:').join('|') + '|');
    push('| `list_runs` | ' + conc.map((c) => ratios(atConcurrency(big.listRuns, c), atConcurrency(small.listRuns, c))).join(' | ') + ' |');
    push('| `list_playbook_events` | ' + conc.map((c) => ratios(atConcurrency(big.listEvents, c), atConcurrency(small.listEvents, c))).join(' | ') + ' |');
    push('');
  }

  lines.push(...growth(r, conc));

  // ---- the floors ----
  push('## The floors: this machine\'s limits, built by the bench', '');
  push('| Floor | What it does | Conc. | req/s | p50 | p99 |');
  push('|---|---|--:|--:|--:|--:|');
  for (const key of ['static', 'listBytes', 'rustStatic', 'read', 'readBytes', 'write', 'create', 'chain', 'nested', 'modelFirst', 'modelSecond', 'toolCall', 'toolRun', 'toolChain']) {
    for (const c of conc) {
      const m = atConcurrency(r.floors[key], c);
      if (!m) continue;
      push(`| ${c === conc[0] ? FLOORS[key].name : ''} | ${c === conc[0] ? FLOORS[key].what : ''} | ${c} | ${int(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} |`);
    }
  }
  push('');
  if (r.floorsBefore) {
    // The speed of the machine drifts; what the floors moved by says how far to trust a ratio.
    const moved = Object.keys(r.floorsBefore).map((key) => `${FLOORS[key].name} ` +
      conc.map((c) => {
        const b = atConcurrency(r.floorsBefore[key], c);
        const a = atConcurrency(r.floorsAfter[key], c);
        return b && a ? `${(a.rps / b.rps).toFixed(2)}` : '—';
      }).join(' / '));
    push('The floors without another process ran twice, before the runtime\'s rows and again after them; the table gives ' +
      'the mean of the two, and each ratio above divides by it. req/s after ÷ before, at conc. ' + conc.join(' / ') + ': ' +
      moved.join('; ') + '.', '');
  }

  // ---- the TypeScript server ----
  push('## The TypeScript MCP server (`@modelcontextprotocol/sdk`, playbooks in one Durable Object)', '');
  push('| Operation | Floor | Conc. | req/s | p50 | p99 | ÷ floor | Failed |');
  push('|---|---|--:|--:|--:|--:|--:|--:|');
  for (const [op, floorKey] of [['tools/list', 'static'], ['get_playbook', 'read'], ['create_playbook', 'write']]) {
    for (const c of conc) {
      const m = atConcurrency(r.ts[op], c);
      if (!m) continue;
      push(`| ${c === conc[0] ? `\`${op}\`${op === 'tools/list' ? ' (2 tools)' : ''}` : ''} | ${c === conc[0] ? FLOORS[floorKey].name : ''} | ${c} | ` +
        `${int(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${ratios(m, atConcurrency(r.floors[floorKey], c))} | ${m.failed + m.errors} |`);
    }
  }
  push('');

  // ---- size ----
  push('## Size of the upload', '');
  push(`What \`wrangler deploy\` would send, from its dry run, gzip level 9. Cloudflare's limits: ${bytes(LIMIT_FREE)} compressed on the free plan, ${bytes(LIMIT_PAID)} on paid.`, '');
  push('| Worker | wasm raw | wasm gzip | upload raw | upload gzip | of free limit | of paid limit | wrangler says |');
  push('|---|--:|--:|--:|--:|--:|--:|---|');
  for (const [name, s] of [['Auto Runtime', r.size?.runtime], ['TypeScript MCP server', r.size?.ts]]) {
    if (!s) continue;
    push(`| ${name} | ${s.wasm ? bytes(s.wasm.raw) : '—'} | ${s.wasm ? bytes(s.wasm.gzip) : '—'} | ${bytes(s.raw)} | ${bytes(s.gzip)} | ` +
      `${pct(s.gzip, LIMIT_FREE)} | ${pct(s.gzip, LIMIT_PAID)} | ${s.wranglerSays ?? '—'} |`);
  }
  push('');

  // ---- start-up ----
  push('## Start-up', '');
  const starts = r.startup[0]?.samples?.length ?? 1;
  push('From starting `wrangler dev` (a cold workerd process, empty state) to the first HTTP answer, asked every 10 ms. ' +
    'It includes wrangler\'s own start, which the JavaScript floor\'s figure shows. ' +
    (starts > 1 ? `Each Worker started ${starts} times, one of each in turn; the figure is the median, the range beside it.` : 'Each Worker started once.'), '');
  push('| Worker | First answer after (ms) | Range (ms) | ÷ JavaScript floor |');
  push('|---|--:|--:|--:|');
  const jsStart = r.startup.find((s) => s.floor)?.ms;
  for (const s of r.startup) {
    const range = s.samples ? `${int(Math.min(...s.samples))}–${int(Math.max(...s.samples))}` : '—';
    push(`| ${s.name} | ${int(s.ms)} | ${range} | ${ratio(s.ms, jsStart)} |`);
  }
  push('');

  // ---- seeding ----
  push('## Stored rows and how they were seeded', '');
  for (const s of r.seeding) {
    if (s.copied) {
      const small = r.seeding.find((x) => x.runs);
      const rate = small ? Math.min(small.runs.stored / small.runs.seconds, small.events.stored / small.events.seconds) : NaN;
      push(`- Large: those rows copied inside their playbooks' own SQLite stores while the runtime was stopped, ` +
        `${s.copied.runsTimes}× the runs and ${s.copied.eventsTimes}× the events, each copy under new ids ` +
        `(\`tests/bench/multiply.mjs\`): ${int(s.copied.runs)} runs and ${int(s.copied.events)} events, in ${s.copied.seconds.toFixed(1)} s. ` +
        `Through the API, at the slower of the rates above, ${int(s.copied.runs)} rows would take about ${int(s.copied.runs / rate / 60)} minutes. ` +
        `The runtime was then started again on that state; its first \`list_runs\` took ${int(s.copied.firstPageMs)} ms.`);
      continue;
    }
    const { runs, events } = s;
    push(`- Small: ${int(runs.stored)} runs in ${runs.seconds.toFixed(1)} s ` +
      `(${int(runs.stored / runs.seconds)}/s, \`POST …/definitions/computation/add-vat/run\`, ${cfg.seedConnections} at a time)` +
      `; ${int(events.stored)} published events in another playbook in ${events.seconds.toFixed(1)} s ` +
      `(${int(events.stored / events.seconds)}/s, \`POST …/events\`, ${cfg.seedConnections} at a time).` +
      (runs.failed || events.failed ? ` ${runs.failed + events.failed} requests failed and stored nothing.` : ''));
    for (const seeded of [runs, events]) {
      if (seeded.stored < seeded.target) {
        push(`  Only ${int(seeded.stored)} of the ${int(seeded.target)} ${seeded.kind} asked for: at ${int(seeded.stored / seeded.seconds)} a second, ` +
          `that is what fit in the time the ${cfg.budgetSeconds}-second budget left after the other measurements.`);
      }
    }
  }
  push('');

  lines.push(...cloudflare());

  // ---- builds ----
  push('## Builds', '');
  for (const b of r.builds) push(`- ${b.label}: ${b.reused ? 'fresh, reused' : `built in ${b.seconds.toFixed(0)} s`}`);
  push('');
  return lines.join('\n');
}
