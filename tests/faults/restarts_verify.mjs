// What part 1 checks once the last runtime is up: it lets every run settle (answering each open
// request, sending `go` where a run waits for it), then reads every run list_runs lists and every
// run, event, answer and run event the harness was told it had made, and says what is missing,
// what ran twice, what is stuck, and whether the triggers started their runs. get_run is the
// truth for a run; list_runs is checked against it.
import { ANSWER } from './playbook.mjs';
import { allPages, ok, pool, sleep } from './wire.mjs';

const SETTLE_MS = 180_000; // the longest the last runtime may take to let every run settle
const STALL_MS = 30_000; // a run that waits for a function asks it every 5 s: a stall this long means nothing will move
const AFTER_START_MS = 500; // a trigger due this soon after a start may have been taken as a missed time
const BEFORE_KILL_MS = 2_000; // a trigger due this close to a kill may not have started its run before it

/** Answers every open request and sends `go` where a run waits for it, until no run is started or nothing moves. */
export async function settle(client, record, say) {
  const deadline = Date.now() + SETTLE_MS;
  let started = [];
  let seen = '';
  let movedAt = Date.now();
  while (Date.now() < deadline && Date.now() - movedAt < STALL_MS) {
    const open = await allPages(client, '/interactions', 'requests', { limit: 100 });
    await pool(open, 8, async (r) => {
      if (ok(await client.post(`/runs/${r.run_id}/answer`, { answer: ANSWER }))) record.answered.add(r.run_id);
    });
    // list_runs names the candidates; get_run says whether each is still started.
    const listed = await allPages(client, '/runs', 'runs', { status: 'started', limit: 100 });
    started = (await pool(listed, 8, async (r) => (await client.get(`/runs/${r.run_id}`)).json))
      .filter((run) => run?.status === 'started');
    const waitingForGo = started.filter((run) => run.steps?.some((s) => s.step === 'go' && s.status === 'waiting'));
    await pool(waitingForGo, 8, async (run) => {
      if (ok(await client.post(`/runs/${run.run_id}/events`, { name: 'go', data: { settle: true } }))) record.goSent.add(run.run_id);
    });
    say(`settling: ${open.length} requests answered, ${waitingForGo.length} sent go, ${started.length} runs started (${listed.length} by list_runs)`);
    if (started.length === 0) break;
    const now = started.map((r) => r.run_id).sort().join(' ');
    if (open.length || waitingForGo.length || now !== seen) movedAt = Date.now();
    seen = now;
    await sleep(1_000);
  }
  return started.map((r) => r.run_id);
}

/** Whether a started run waits for something that will come: a time ahead, an event, a listed request. */
function waitsCorrectly(run, openRequests, now) {
  if (openRequests.has(run.run_id)) return true;
  return (run.steps ?? []).some((step) => {
    if (step.status === 'waiting' && typeof step.waiting_for === 'string') {
      return step.waiting_for.startsWith('the event') || Date.parse(step.waiting_for) > now - BEFORE_KILL_MS;
    }
    return step.status === 'running' && openRequests.has(step.run_id);
  });
}

/**
 * The history of one workflow run (its own events and those of the runs its steps started): the
 * events recorded more than once (the same kind, run, time and data under another event id), and,
 * counting each such event once, the steps that finished more than once and the runs that started
 * other than once — a step or a run done again, which a copy of its record is not.
 */
async function historyOf(client, run) {
  const events = await allPages(client, '/events', 'events', { run_id: run.run_id, limit: 200 });
  const copies = new Map();
  for (const e of events) {
    const key = JSON.stringify([e.run_id, e.kind, e.at, e.data]);
    copies.set(key, [...(copies.get(key) ?? []), e]);
  }
  const duplicated = [...copies.values()].filter((list) => list.length > 1)
    .map((list) => `${list[0].run_id}: ${list[0].kind} at ${list[0].at} recorded as ${list.map((e) => e.event_id).join(', ')}`);
  const finished = new Map();
  const started = new Map();
  const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const [first] of copies.values()) {
    if (first.kind === 'step_finished') count(finished, first.data.step);
    if (first.kind === 'run_started') count(started, first.run_id);
  }
  const twice = [...finished].filter(([, n]) => n > 1).map(([step, n]) => `${run.run_id}: step ${step} finished ${n} times`);
  const runIds = new Set([run.run_id, ...run.steps.map((s) => s.run_id).filter(Boolean), ...started.keys()]);
  const badStarts = [...runIds].filter((id) => started.get(id) !== 1).map((id) => `${id}: run_started ${started.get(id) ?? 0} times`);
  return { twice, badStarts, duplicated };
}

/**
 * What the triggers owed: each time due while the runtime served (away from its start and its kill)
 * starts a run named by that time; each stop that some times fell due in is made up, after it, by
 * a run named by the first time it missed — one run, so no two runs of a trigger are named by
 * times between the kill and the spawn of the next runtime. (Not up to its first answer: workerd
 * fires alarms before wrangler says it serves, and a time due then is served on time.)
 */
function triggerExpectations(windows, due, runIds) {
  const fired = runIds.map((id) => id.match(/-(\d+)-(\d+)$/)).filter(Boolean).map((m) => ({ idx: Number(m[1]), t: Number(m[2]) * 1000 }));
  const within = (idx, lo, hi) => fired.filter((f) => f.idx === idx && f.t >= lo && f.t <= hi);
  const onTime = due.filter(({ t }) => windows.some((w) => t >= w.from + AFTER_START_MS && t <= w.to - BEFORE_KILL_MS));
  const missedOnTime = onTime.filter(({ idx, t }) => within(idx, t, t).length === 0);
  const stops = [];
  for (let i = 0; i + 1 < windows.length; i += 1) {
    const [down, up, spawned] = [windows[i].to, windows[i + 1].from, windows[i + 1].spawned];
    for (const idx of new Set(due.map((d) => d.idx))) {
      if (due.some((d) => d.idx === idx && d.t > down && d.t < up)) stops.push({ idx, down, up, spawned });
    }
  }
  const when = ({ idx, down, up }) => `trigger ${idx}, stopped ${new Date(down).toISOString()} to ${new Date(up).toISOString()}`;
  const notMadeUp = stops.filter(({ idx, down, up }) => within(idx, down - BEFORE_KILL_MS, up).length === 0);
  const madeUpTwice = stops.filter(({ idx, down, spawned }) => within(idx, down + 1, spawned).length > 1);
  return {
    onTime: onTime.length,
    missedOnTime: missedOnTime.map(({ idx, t }) => `trigger ${idx} due ${new Date(t).toISOString()} while serving`),
    stops: stops.length,
    notMadeUp: notMadeUp.map((stop) => `${when(stop)}: no run made it up`),
    madeUpTwice: madeUpTwice.map((stop) => `${when(stop)}: ${within(stop.idx, stop.down + 1, stop.spawned).length} runs named by times before the next spawn`),
  };
}

/** Reads everything back and answers the counts and the checks of part 1. */
export async function verify(client, record, { windows, due }) {
  const now = Date.now();
  const open = new Set((await allPages(client, '/interactions', 'requests', { limit: 100 })).map((r) => r.run_id));
  const indexed = await allPages(client, '/runs', 'runs', { limit: 100 });
  const ids = new Set([...indexed.map((r) => r.run_id), ...record.runs.keys(), ...record.answered, ...record.goSent]);
  const runs = new Map();
  const notFound = new Map();
  await pool([...ids], 16, async (runId) => {
    const got = await client.get(`/runs/${runId}`);
    if (ok(got)) runs.set(runId, got.json);
    else notFound.set(runId, got.status);
  });
  const lostRuns = [...record.runs.keys()].filter((id) => notFound.has(id)).map((id) => `${id}: ${notFound.get(id)}`);
  const phantoms = indexed.filter((r) => notFound.has(r.run_id))
    .map((r) => `${r.run_id} (${r.definition.type}/${r.definition.name}, ${r.status} since ${r.started_at}): get_run ${notFound.get(r.run_id)}`);
  const disagree = indexed.filter((r) => runs.has(r.run_id) && runs.get(r.run_id).status !== r.status)
    .map((r) => `${r.run_id}: list_runs ${r.status}, get_run ${runs.get(r.run_id).status}`);

  const lostEvents = [];
  await pool([...record.events], 16, async (eventId) => {
    const got = await client.get(`/events/${eventId}`);
    if (!ok(got)) lostEvents.push(`${eventId}: ${got.status}`);
  });

  const workflows = [...runs.values()].filter((r) => r.definition.type === 'workflow');
  const outcome = { succeeded: [], waiting: [], failed: [], stuck: [] };
  const twice = [];
  const badStarts = [];
  const duplicated = [];
  await pool(workflows, 8, async (run) => {
    if (run.status === 'succeeded') outcome.succeeded.push(run.run_id);
    else if (run.status === 'started' && waitsCorrectly(run, open, now)) outcome.waiting.push(run.run_id);
    else if (run.status === 'started') outcome.stuck.push(`${run.run_id}: ${JSON.stringify(run.steps).slice(0, 300)}`);
    else outcome.failed.push(`${run.run_id}: ${run.status} ${JSON.stringify(run.error ?? {}).slice(0, 300)}`);
    const history = await historyOf(client, run);
    twice.push(...history.twice);
    badStarts.push(...history.badStarts);
    duplicated.push(...history.duplicated);
  });
  // Other runs the harness started (interactions) finished too, or still wait for a listed request.
  const otherStuck = [...runs.values()].filter((r) => r.definition.type !== 'workflow' && r.status === 'started' && !waitsCorrectly(r, open, now))
    .map((r) => `${r.run_id}: ${r.definition.type}/${r.definition.name} started, not listed as waiting`);

  const unanswered = [...record.answered].filter((id) => runs.get(id)?.status !== 'succeeded')
    .map((id) => `${id}: ${runs.get(id)?.status ?? notFound.get(id)}`);
  const goLost = [...record.goSent].filter((id) => {
    const go = runs.get(id)?.steps?.find((s) => s.step === 'go');
    return !go || go.status !== 'succeeded';
  });

  const triggered = workflows.filter((r) => r.definition.name === 'ticking').map((r) => r.run_id);
  const triggers = triggerExpectations(windows, due, triggered);

  const some = (list) => `${list.length}: ${list.slice(0, 5).join('; ')}`;
  const checks = [
    ['every acknowledged run is found by get_run', lostRuns],
    ['every acknowledged event is found by get_event', lostEvents],
    ['every acknowledged answer finished its interaction', unanswered],
    ['every acknowledged run event (`go`) was taken by its step', goLost],
    ['no workflow run failed', outcome.failed],
    ['no workflow run is stuck (started, waiting for nothing that will come)', outcome.stuck],
    ['no other run is stuck', otherStuck],
    ['no step ran twice (a second step_finished of a step at another time)', twice],
    ['every run started exactly once (each workflow run and each run its steps started)', badStarts],
    ['every event of a workflow run\'s history is recorded once (no copy under another event id)', duplicated],
    ['every run list_runs lists is found by get_run', phantoms],
    ['list_runs gives every run the status get_run gives it', disagree],
    ['every trigger time due while the runtime served started its run', triggers.missedOnTime],
    ['every stop that trigger times fell due in was made up by a run after it', triggers.notMadeUp],
    ['no stop was made up by more than one run of a trigger', triggers.madeUpTwice],
  ].map(([name, failures]) => ({ part: 'restarts', name, ok: failures.length === 0, detail: some(failures) }));
  checks.push({ part: 'restarts', name: 'the triggers started runs', ok: triggered.length > 0, detail: `${triggered.length}` });

  const stats = {
    runsAcknowledged: record.runs.size,
    runsFound: record.runs.size - lostRuns.length,
    eventsAcknowledged: record.events.size,
    eventsFound: record.events.size - lostEvents.length,
    answersAcknowledged: record.answered.size,
    answersTookEffect: record.answered.size - unanswered.length,
    goAcknowledged: record.goSent.size,
    goTaken: record.goSent.size - goLost.length,
    runsListed: indexed.length,
    phantoms: phantoms.length,
    indexDisagrees: disagree.length,
    workflowRuns: workflows.length,
    succeeded: outcome.succeeded.length,
    waiting: outcome.waiting.length,
    failed: outcome.failed.length,
    stuck: outcome.stuck.length,
    otherStuck: otherStuck.length,
    stepsTwice: twice.length,
    duplicatedEvents: duplicated.length,
    badStarts: badStarts.length,
    triggerRuns: triggered.length,
    triggerPhantoms: indexed.filter((r) => r.definition.name === 'ticking' && notFound.has(r.run_id)).length,
    dueWhileUp: triggers.onTime,
    dueStarted: triggers.onTime - triggers.missedOnTime.length,
    stops: triggers.stops,
    stopsMadeUp: triggers.stops - triggers.notMadeUp.length,
  };
  return { stats, checks };
}
