// Two parts of the bench's report: how cost grows with what is stored (growth.mjs, and the
// connections of the tool rows), and what would differ on Cloudflare's network, as a reasoned
// estimate rather than a measurement.

const int = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const ms = (n) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : '—');
const at = (series, connections) => series?.find((m) => m.connections === connections);
const over = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : '—');

/** "req/s · p50" of one measurement, and its req/s over the smallest size's. */
function cell(m, first) {
  if (!m) return '—';
  return `${int(m.rps)} · ${ms(m.p50)} ms${first && first !== m ? ` (${over(m.rps, first.rps)})` : ''}`;
}

const READS = {
  history: '`list_playbook_events` with the run\'s `run_id`, first page',
  run: '`get_run` of the workflow run',
  definition: '`get_definition` of the definition with the versions',
};

export function growth(r, allConcurrencies) {
  const lines = [];
  const g = r.growth;
  const conc = r.cfg.growthConcurrencies ?? allConcurrencies;
  if (!g && !r.connections) return lines;
  lines.push('## How cost grows with what is stored', '');
  lines.push('req/s · p50 at each size, and in brackets req/s divided by the smallest size\'s (1.00: the cost does not grow). ' +
    `Measured at concurrency ${conc.join(' and ')}.`, '');
  if (g) {
    lines.push(`A workflow of ${g.steps} steps (the most one holds) ran once to its end; its history was then grown inside the ` +
      'playbook\'s store with the runtime stopped, and one definition\'s versions with it (`tests/bench/growth.mjs`).', '');
    lines.push('| Read | Stored | ' + conc.map((c) => `Conc. ${c}`).join(' | ') + ' |');
    lines.push('|---|---|' + conc.map(() => '--:').join('|') + '|');
    for (const [key, label] of Object.entries(READS)) {
      g.sizes.forEach((size, i) => {
        // Versions grow only at the largest size: a size that stores as many as the one before
        // would measure the same thing again.
        if (key === 'definition' && i > 0 && size.versions === g.sizes[i - 1].versions) return;
        const stored = key === 'definition' ? `${int(size.versions)} versions` : `${int(size.events)} events`;
        lines.push(`| ${i === 0 ? label : ''} | ${stored} | ` +
          conc.map((c) => cell(at(size.reads[key], c), at(g.sizes[0].reads[key], c))).join(' | ') + ' |');
      });
    }
    lines.push('');
  }
  if (r.connections?.length) {
    lines.push('| Read | Stored | ' + conc.map((c) => `Conc. ${c}`).join(' | ') + ' |');
    lines.push('|---|---|' + conc.map(() => '--:').join('|') + '|');
    r.connections.forEach((size, i) => {
      lines.push(`| ${i === 0 ? '`list_connections`, first page' : ''} | ${int(size.stored)} connections | ` +
        conc.map((c) => cell(at(size.data, c), at(r.connections[0].data, c))).join(' | ') + ' |');
    });
    lines.push('', 'The connections were added through `add_connection` as a person adds them, each a server given by hand ' +
      '(the bench\'s tool server), eight at a time.', '');
  }
  return lines;
}

export function cloudflare() {
  return [
    '## What would differ on Cloudflare\'s network (an estimate, not a measurement)', '',
    '- **Many threads and machines.** Here every object and the Worker run on one thread of one workerd process (under load, ' +
      '`top -H` shows that thread busy and the process\'s others idle), with the load generator beside it, so rows that start ' +
      'many objects (a workflow, `create_playbook` at concurrency 64) queue for the same thread, and work moved off an answer\'s ' +
      'path still holds the answer up, since it takes the same thread. On Cloudflare each object runs on one thread of one machine and different objects on ' +
      'different ones ([Durable Objects: what they are](https://developers.cloudflare.com/durable-objects/concepts/what-are-durable-objects/)), ' +
      'so throughput at 8 and 64 should scale with the objects a row spreads over rather than with one thread.',
    '- **The output gate.** A SQLite-backed object holds its answer until its writes are confirmed by a quorum of replicas in nearby ' +
      'data centres ([Zero-latency SQLite storage in every Durable Object](https://blog.cloudflare.com/sqlite-in-durable-objects/): five ' +
      'followers, three confirmations). Locally the gate only waits for the local write. Every write before an answer costs a few ' +
      'milliseconds more there, which the DO write and DO create floors pay too, so the ratios of write rows should hold or improve; ' +
      'their absolute latency will be higher.',
    '- **Hops between objects.** The Worker runs near the caller and an object where it was first asked for, so a Worker → object ' +
      'hop may cross a region while object → object hops (a playbook and the runs it creates) stay near each other. Rows with more ' +
      'hops than their floor (a run: playbook, then run) lose more there than here; keeping work off the path before the answer ' +
      'matters more than it shows locally.',
    '- **Start-up.** A cold isolate there compiles the same wasm with the same V8, which the compile time above measures; the ' +
      'first answer measured here also holds wrangler\'s own start, which production does not pay.',
    '',
  ];
}
