// The performance targets, each read off one bench run as a ratio to its floor in the same run, with
// what bounds it. A ratio here is always "how fast, as a share of the floor": req/s divided by the
// floor's, or for a latency target the floor's p50 divided by ours, so 1.00 is the floor and higher
// is better everywhere, in the table and in the plot.

const at = (series, connections) => series?.find((m) => m.connections === connections);
const share = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);

/** req/s of `data` over req/s of `floor`, at one concurrency. */
const throughput = (data, floor) => (c) => share(at(data, c)?.rps, at(floor, c)?.rps);
/** The floor's p50 over ours (ours divided by `per`, as a workflow's per step), at one concurrency. */
const latency = (data, floor, per = 1) => (c) => share(at(floor, c)?.p50, at(data, c)?.p50 / per);

/** What bounds `tools/list`: the size of its answer, as the JavaScript floor answering as many bytes shows. */
function listBound(R, F) {
  const said = 'no storage at all: reading the request, checking the caller, and writing the list, which an isolate builds once';
  if (!F.listBytes || !R.listBytes) return said;
  const pair = (ratio) => [1, 8].map((c) => ratio(c).toFixed(2)).join(' / ');
  return `${said}; its answer is ${(R.listBytes / 1024).toFixed(0)} KiB, and a JavaScript Worker that reads the same request and answers as many bytes reaches ${pair(throughput(F.listBytes, F.static))} of this floor (conc. 1 / 8), the runtime ${pair(throughput(R['tools/list'], F.listBytes))} of that one`;
}

/** What bounds `get_playbook`: its floor's read on the wire of an MCP call, as the Rust floor doing both shows. */
function readBound(R, F) {
  const said = 'one Durable Object hop and one row read, as its floor';
  if (!F.readBytes || !R.readBytes) return said;
  const pair = (ratio) => [1, 8].map((c) => ratio(c).toFixed(2)).join(' / ');
  return `${said}; a Rust Worker that reads the same request, makes that read and answers as many bytes (${R.readBytes}) as an event stream reaches ${pair(throughput(F.readBytes, F.read))} of this floor (conc. 1 / 8), the runtime ${pair(throughput(R.get_playbook, F.readBytes))} of that one`;
}

/**
 * What a chain of object calls allows, said with its bound: the floor that makes the same calls
 * with the least work in each reaches this share of the DO create floor (conc. 1 / 8), and the
 * runtime this share of that floor.
 */
function chainBound(said, runtime, chain, create) {
  if (!chain || !runtime) return said;
  const pair = (ratio) => [1, 8].map((c) => ratio(c).toFixed(2)).join(' / ');
  return `${said}; the same calls with the least work in each reach ${pair(throughput(chain, create))} of the DO create floor (conc. 1 / 8), the runtime ${pair(throughput(runtime, chain))} of that`;
}

/** What bounds the reasoning run: its chain of calls and writes, as the Rust floor making them shows. */
function runBound(T, F) {
  const said = 'two model requests and one tool call, one after another, and the run\'s object, which keeps the run, each call before it is made and each answer before the model reads it';
  if (!F.toolChain || !T.run) return said;
  const pair = (ratio) => [1, 8].map((c) => ratio(c).toFixed(2)).join(' / ');
  return `${said}; the same calls, requests and writes with the least work in each reach ${pair(latency(F.toolChain, F.toolRun))} of this floor (p50, conc. 1 / 8), the runtime ${pair(latency(T.run, F.toolChain))} of that`;
}

/**
 * The rows: what is measured, against what, the least share each concurrency must reach (none for
 * 64, which is reported), and what bounds the row on this machine.
 */
export function targets(r) {
  const R = r.runtime ?? {};
  const F = r.floors ?? {};
  const T = r.tools ?? {};
  return [
    {
      label: '`tools/list`', floor: 'no state', ratio: throughput(R['tools/list'], F.static), least: { 1: 0.8, 8: 0.8 },
      bound: listBound(R, F),
    },
    {
      label: '`get_playbook`', floor: 'DO read', ratio: throughput(R.get_playbook, F.read), least: { 1: 0.9, 8: 0.9 },
      bound: readBound(R, F),
    },
    {
      label: '`tools/list` with a key', floor: 'the same in local mode', ratio: throughput(R['tools/list key'], R['tools/list']), least: { 1: 0.9, 8: 0.9 },
      bound: 'a key seen before is known to the isolate: no Durable Object call',
    },
    {
      label: '`get_playbook` with a key', floor: 'the same in local mode', ratio: throughput(R['get_playbook key'], R.get_playbook), least: { 1: 0.9, 8: 0.9 },
      bound: 'as above',
    },
    {
      label: '`create_playbook`', floor: 'DO create', ratio: throughput(R.create_playbook, F.create), least: { 1: 0.7, 8: 0.5 },
      bound: chainBound('two calls nested: the org\'s directory keeps the name unique and has the new playbook\'s object make its table and keep its record, then lists it', R.create_playbook, F.nested, F.create),
    },
    {
      label: '`run_definition`, computation', floor: 'DO create', ratio: throughput(R.run_definition, F.create), least: { 1: 0.6, 8: 0.6 },
      bound: chainBound('three calls in a row: the playbook\'s object reads the definition, the run\'s new object keeps the run, and hands its history and its state to the playbook\'s before the answer', R.run_definition, F.chain, F.create),
    },
    {
      label: 'workflow step (p50)', floor: 'DO create p50', ratio: latency(R.workflow, F.create, 20), least: { 1: 1 / 1.3, 8: 1 / 2 },
      bound: 'each step is a run in a new object of its own, which answers its history to the workflow\'s object; that sends the history of a round of steps to the playbook\'s in one call',
    },
    {
      label: 'reasoning, one tool call (p50)', floor: 'model ×2 + tool + DO create', ratio: latency(T.run, F.toolRun), least: { 1: 1 / 1.2, 8: 1 / 1.2 },
      bound: runBound(T, F),
    },
  ];
}

/** "0.83 ✓" or "0.41 ✗ (0.60)": a share against the least it must reach, where one is set. */
export function judged(value, least) {
  if (!Number.isFinite(value)) return '—';
  if (least === undefined) return value.toFixed(2);
  return value >= least ? `${value.toFixed(2)} ✓` : `${value.toFixed(2)} ✗ (${least.toFixed(2)})`;
}
