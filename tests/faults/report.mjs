// The fault harness's results as Markdown: one table of counts per part, then every check with
// its verdict, and for a failed check the cases that failed it.

const int = (n) => (Number.isFinite(n) ? n.toLocaleString('en-US') : String(n ?? '—'));
const mib = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown table; the columns after the first are numbers, aligned right, unless `text` is set. */
function table(header, rows, { text = false } = {}) {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (i === 0 || text ? '---' : '--:')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

function restartsSection(s) {
  return [
    '## Restarts', '',
    `The runtime was killed with SIGKILL ${s.restarts} times at random moments (1–6 s of traffic each, requests in flight), ` +
    'then started once more on the same state; 3 s later the triggers\' workflow was paused, every open request was answered ' +
    'and every run waiting for `go` was sent it, and everything was read back.', '',
    ...table(['Count', 'Value'], [
      ['restarts (hard kills)', `${int(s.restarts)} (${int(s.killedHard)})`],
      ['requests sent / acknowledged / cut off by a kill', `${int(s.sent)} / ${int(s.acknowledged)} / ${int(s.cutOff)}`],
      ['of those cut off, answered 5xx by wrangler\'s proxy as the kill landed', int(s.proxy5xx)],
      ['requests refused while serving (count × status)', s.refused],
      ['runs acknowledged / found', `${int(s.runsAcknowledged)} / ${int(s.runsFound)}`],
      ['events acknowledged / found', `${int(s.eventsAcknowledged)} / ${int(s.eventsFound)}`],
      ['answers acknowledged / took effect', `${int(s.answersAcknowledged)} / ${int(s.answersTookEffect)}`],
      ['run events (`go`) acknowledged / taken', `${int(s.goAcknowledged)} / ${int(s.goTaken)}`],
      ['workflow runs: succeeded / waiting / failed / stuck', `${int(s.workflowRuns)}: ${int(s.succeeded)} / ${int(s.waiting)} / ${int(s.failed)} / ${int(s.stuck)}`],
      ['interaction runs stuck (started, no request listed)', int(s.otherStuck)],
      ['steps run twice', int(s.stepsTwice)],
      ['events recorded twice in a workflow run\'s history (same kind, run, time and data)', int(s.duplicatedEvents)],
      ['runs started other than once', int(s.badStarts)],
      ['trigger runs started (and listed by list_runs but not found by get_run)', `${int(s.triggerRuns)} (${int(s.triggerPhantoms)})`],
      ['trigger times due while serving: started / due', `${int(s.dueStarted)} / ${int(s.dueWhileUp)}`],
      ['stops with trigger times due: made up after / stops', `${int(s.stopsMadeUp)} / ${int(s.stops)}`],
      ['runs listed by list_runs / of them not found by get_run', `${int(s.runsListed)} / ${int(s.phantoms)}`],
      ['runs whose status list_runs gives otherwise than get_run', int(s.indexDisagrees)],
      ['runs still started when the settling ended', int(s.stillStarted)],
      ['run starts cut off by a kill / answered 2xx when retried', `${int(s.cutOffStarts)} / ${int(s.retriesAnswered)}`],
      ['panics', int(s.panics)],
    ]), '',
  ];
}

function hostileSection(h) {
  const rows = h.families.map((f) => [f.family, int(f.sent), int(f.problem), int(f.mcp), int(f.other4xx), int(f.ok), int(f.noAnswer), int(f.server)]);
  const t = h.total;
  rows.push(['**all**', int(t.sent), int(t.problem), int(t.mcp), int(t.other4xx), int(t.ok), int(t.noAnswer), int(t.server)]);
  return [
    '## Hostile requests', '',
    `${int(t.sent)} malformed or hostile requests to /mcp and every HTTP route (${int(h.routes)} routes, ${int(h.tools)} tools), ` +
    `${h.width} at a time. After every ${h.every} and at the end a normal request was sent: ${int(h.normalPassed)} of ${int(h.normalChecks)} passed. ` +
    `Panics in the log: ${int(h.panics)}.`, '',
    '"Problem" is a 4xx answered with a problem document (`application/problem+json` with `reason` and `detail`); ' +
    '"MCP refusal" a JSON-RPC error or a tool result with `isError: true` (MCP answers tool failures with 200); ' +
    '"other 4xx" a 4xx in neither shape (workerd\'s own answers to a head or URL too large); "no answer" a connection closed without one.', '',
    ...table(['Case family', 'Sent', 'Problem', 'MCP refusal', 'Other 4xx', '2xx', 'No answer', '5xx'], rows), '',
    ...(h.notes.length ? ['The first success of each family, and the first answer of each other 4xx status:', '', ...h.notes.map((n) => `- ${n}`), ''] : []),
  ];
}

function concurrencySection(c) {
  return [
    '## Concurrency', '',
    ...table(['Count', 'Value'], [
      [`concurrent run_definition calls under one run id`, int(c.sameId.calls)],
      ['answered 2xx with that run, succeeded, same output', int(c.sameId.sameRun)],
      ['times list_runs lists the run', int(c.sameId.listed)],
      ['`run_started` events of the run', int(c.sameId.started)],
      [`runs on one playbook (${c.many.width} at a time)`, int(c.many.calls)],
      ['acknowledged / listed by list_runs / get_run succeeded', `${int(c.many.acknowledged)} / ${int(c.many.listed)} / ${int(c.many.succeeded)}`],
      ['lost', int(c.many.lost)],
      ['seconds to start them', c.many.runSeconds.toFixed(1)],
      ['panics', int(c.panics)],
    ]), '',
  ];
}

function toolsSection(t) {
  const rows = t.rows.map((r) => [
    `${r.family}/${r.tool}`, r.does, r.because, r.runs, r.ended, int(r.byHand), r.answered, r.longestSeconds.toFixed(1),
  ]);
  return [
    '## Tools', '',
    `A misbehaving MCP tool server (\`tests/faults/tools_server.mjs\`) served ${int(t.servers)} servers: one per family of faults, ` +
    'a legacy one that lists every fault\'s tool but speaks 2025-11-25 alone (in a session), and a good one. Each fault was met by ' +
    'reasoning runs whose stand-in model calls its tool and by lookups through it ("runs": reasoning + lookup), and by calls by hand ' +
    '(`query_connection` over HTTP and `execute_connection` over MCP, on its own server and on the legacy one). ' +
    `A fault that never answers in time met calls by hand with \`timeout_seconds\` ${t.byHandTimeout}, and ${int(t.waited)} runs, which waited ` +
    `out the ${t.callSeconds}-second call deadline together. In all ${int(t.runs)} runs and ${int(t.byHand)} calls by hand, ` +
    `${int(t.answers)} answers read, in ${t.seconds.toFixed(0)} s; panics in the log: ${int(t.panics)}. ` +
    `Each of the ${int(t.floods)} floods would have sent ${mib(t.floodBytes)}; the most one sent before the runtime hung up was ${mib(t.floodedMost)}.`, '',
    '"Answered as" is the problem a call by hand was refused with, its reason and the because its words give (503 over HTTP, ' +
    'a tool result with `isError` over MCP); "longest" the longest a run\'s start or a call by hand took to answer, in seconds.', '',
    ...table(['Fault', 'What the server does', 'Because', 'Runs', 'Runs ended', 'By hand', 'Answered as', 'Longest (s)'], rows, { text: true }), '',
  ];
}

function connectionsSection(c) {
  const rows = c.rows.map((r) => [r.fault, r.during, r.must, r.saw, r.ok ? 'pass' : '**FAIL**']);
  return [
    '## Connections', '',
    'A connection meets its faults: the stand-in service\'s token endpoint failing while a person finishes a consent in ' +
    `headless Chromium and while a connected connection's token is refreshed (its access tokens last ${c.ttl} s), ` +
    'its MCP server misbehaving on a call, and hostile links, forms and callbacks on the connect page. ' +
    `${int(c.answers)} answers read in ${c.seconds.toFixed(0)} s.`, '',
    ...table(['Fault', 'While', 'Must come to', 'What came', 'Result'], rows, { text: true }), '',
  ];
}

function checksSection(checks) {
  const failed = checks.filter((c) => !c.ok);
  return [
    '## Checks', '',
    `${checks.length - failed.length} of ${checks.length} passed.`, '',
    ...table(['Part', 'Check', 'Result', 'Detail'], checks.map((c) => [c.part, c.name, c.ok ? 'pass' : '**FAIL**', c.ok ? '' : c.detail]), { text: true }), '',
  ];
}

function generationSection(g) {
  return [
    '## Generation', '',
    'A generation function\'s gateway (the OpenAI-compatible stand-in) misbehaved once per fault; each run\'s start answered ' +
    `how it ended, and its record and the asset its first file would have been kept as were read back, in ${g.seconds.toFixed(0)} s; ` +
    `panics in the log: ${int(g.panics)}.`, '',
    ...table(['Fault', 'Status', 'Reason', 'Seconds', 'Assets named', 'Its asset answered'],
      g.rows.map((r) => [r.fault, r.status ?? '—', r.reason ?? '—', r.seconds.toFixed(1), int(r.assetsNamed), r.assetFound]), { text: true }),
    '',
  ];
}

function trustSection(t) {
  const rows = t.rows.map((r) => [r.attack, int(r.tries), int(r.refused), r.saw]);
  const m = t.memory;
  return [
    '## Trust', '',
    'Each hole a security review of the runtime found, tried again on a runtime with PUBLIC_URL, ADMIN_TOKEN, OWNERS and a ' +
    'real OpenID provider (one with local mode off for the forged Host). "Refused" counts the tries the runtime refused.', '',
    ...table(['Attack', 'Tries', 'Refused', 'What came'], rows, { text: true }), '',
    `Memory of wrangler and workerd: ${mib(m.start)} after the first sign-ins, ${mib(m.beforeBodies)} before the bodies, ` +
    `${mib(m.afterBodies)} after them, ${mib(m.end)} at the end. A key's request took ${t.latency.quiet.toFixed(1)} ms ` +
    `(median of 20) before the flood and ${t.latency.flood.toFixed(1)} ms during it (on this machine every object runs on ` +
    'one workerd thread, so the flood\'s own work holds any request up).', '',
  ];
}

export function report({ meta, restarts, hostile, concurrency, tools, connections, generation, trust, checks }) {
  const lines = [
    '# Auto Runtime fault harness', '',
    `${meta.date} · commit ${meta.commit} · ${meta.cores} cores · Node ${meta.node} · seed ${meta.seed} · whole run ${meta.seconds.toFixed(0)} s` +
    `${meta.skipped.length ? ` · parts not run: ${meta.skipped.join(', ')}` : ''}`, '',
  ];
  if (restarts) lines.push(...restartsSection(restarts));
  if (hostile) lines.push(...hostileSection(hostile));
  if (concurrency) lines.push(...concurrencySection(concurrency));
  if (tools) lines.push(...toolsSection(tools));
  if (connections) lines.push(...connectionsSection(connections));
  if (generation) lines.push(...generationSection(generation));
  if (trust) lines.push(...trustSection(trust));
  lines.push(...checksSection(checks));
  return `${lines.join('\n')}\n`;
}
