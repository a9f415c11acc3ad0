// The bench's tool rows: a reasoning run that makes one tool call, and `search` across 20 tool
// servers of 50 tools each, on a runtime of their own whose TOOL_SERVERS names the bench's tool
// server (tool_server.mjs) and whose Anthropic provider is the stand-in of the end-to-end suite,
// both in a process of their own (tools_side.mjs). Their floors are measured in the same run: the
// stand-in's own time for the run's two requests and the tool server's for its one call, each the
// very request the runtime made, replayed by autocannon.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { ROOT } from '../e2e/harness.mjs';
import { callTool, mcpFailed, toolBody } from './mcp.mjs';
import { SERVERS, serverName, TOOLS } from './tool_server.mjs';

export { SERVERS, TOOLS };
export const MODEL = 'bench-echo';
const ANSWER = 'The echo answered bench.';
/** What the search row looks for: five tools of each server hold it, so every list is read. */
export const TERMS = 'invoice';

/** Starts tools_side.mjs; answers its addresses and stop(). Its stdin is its lifeline. */
export async function startSide() {
  const child = spawn(process.execPath, [join(ROOT, 'tests', 'bench', 'tools_side.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`tools_side.mjs exited (${code}) before it served`)));
  });
  const side = JSON.parse(line);
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.stdin.end();
  });
  return { ...side, stop };
}

/** The runtime's variables: the stand-in as Anthropic, and the 20 servers of the tool server. */
export function toolVars(side) {
  const servers = Object.fromEntries(Array.from({ length: SERVERS }, (_, i) => serverName(i))
    .map((name) => [name, { type: 'mcp', url: `${side.tools}/${name}/mcp`, allowed: '*' }]));
  return { ANTHROPIC_API_KEY: side.key, ANTHROPIC_BASE_URL: side.model, TOOL_SERVERS: JSON.stringify(servers) };
}

const SOURCE = `---
description: Asks the echo tool of s01 to echo a word, then says what it answered
model: anthropic/${MODEL}
input: { schema: { type: object } }
tools: [s01/echo]
---
Call the echo tool with the text bench, then say what it answered.
`;

/** Whether a run's answer under load is other than a success with the scripted answer. */
export const runFailed = (text) => mcpFailed(text) || !text.includes('"status":"succeeded"');

const json = (res) => res.json();

/**
 * Readies the runtime at `base` for the tool rows: a playbook with the reasoning function, the
 * stand-in scripted, one run (which must succeed) and one search (which must find every server,
 * available). Answers the bodies the rows send, and the requests their floors replay.
 */
export async function prepare(base, side, name) {
  const script = await fetch(`${side.model}/__script`, {
    method: 'POST',
    body: JSON.stringify({ model: MODEL, turns: [{ tool_calls: [{ name: 'echo', input: { text: 'bench' } }] }, { text: ANSWER }] }),
  });
  if (script.status !== 200) throw new Error(`scripting the stand-in: ${script.status} ${await script.text()}`);
  const playbook = (await callTool(base, 'create_playbook', { name })).id;
  await callTool(base, 'create_definition', {
    playbook, type: 'reasoning', name: 'call-echo', source: SOURCE, diagram: 'flowchart LR\n  A[model] --> B[echo] --> C[model]',
    overview: 'Asks the echo tool of the bench to echo a word and says what it answered: one tool call between two model requests.',
  });
  const runArgs = { playbook, type: 'reasoning', name: 'call-echo', input: {} };
  const run = await callTool(base, 'run_definition', runArgs);
  if (run.status !== 'succeeded' || run.output !== ANSWER) throw new Error(`the run with one tool call: ${JSON.stringify(run).slice(0, 500)}`);
  const searchArgs = { playbook, terms: TERMS };
  const found = await callTool(base, 'search', searchArgs);
  const available = found.servers.filter((s) => s.available);
  if (available.length !== SERVERS) throw new Error(`search finds ${available.length} of ${SERVERS} servers available: ${JSON.stringify(found.servers).slice(0, 500)}`);

  // The run's two model requests and its tool call, as the runtime sent them.
  const asked = (await fetch(`${side.model}/__requests?model=${MODEL}`).then(json)).slice(-2);
  if (asked.length !== 2 || asked[0].turn !== 0 || asked[1].turn !== 1) throw new Error(`the stand-in did not get the run's two requests: ${JSON.stringify(asked).slice(0, 300)}`);
  const modelSpec = (request) => ({
    url: `${side.model}/v1/messages`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': request.headers['x-api-key'], 'anthropic-version': request.headers['anthropic-version'] },
    body: JSON.stringify(request.body),
    failed: (text) => !text.includes('"type":"message"'),
  });
  const call = await fetch(`${side.tools}/__last`).then(json);
  const { host: _host, 'content-length': _length, connection: _connection, ...callHeaders } = call.headers;
  return {
    playbook,
    run: toolBody('run_definition', runArgs),
    search: toolBody('search', searchArgs),
    found: { servers: found.servers.length, tools: SERVERS * TOOLS },
    modelFirst: modelSpec(asked[0]),
    modelSecond: modelSpec(asked[1]),
    toolCall: { url: `${side.tools}${call.url}`, method: 'POST', headers: callHeaders, body: call.body, failed: (text) => !text.includes('"result"') },
    // One search before a load finds every list kept (for 60 s per isolate): the row is measured warm.
    warmSearch: () => callTool(base, 'search', searchArgs),
  };
}

/**
 * The floor of a run with one tool call at each concurrency: its parts one after another, so their
 * latencies add, and so do their times per request (req/s is 1 / Σ 1 / req/s). `parts` are
 * [series, times] pairs.
 */
export function serialFloor(parts, concurrencies) {
  return concurrencies.map((connections) => {
    const ms = parts.map(([series, times]) => [series?.find((m) => m.connections === connections), times]);
    if (ms.some(([m]) => !m)) return { connections, rps: NaN, p50: NaN, p99: NaN };
    return {
      connections,
      rps: 1 / ms.reduce((t, [m, n]) => t + n / m.rps, 0),
      p50: ms.reduce((t, [m, n]) => t + n * m.p50, 0),
      p99: ms.reduce((t, [m, n]) => t + n * m.p99, 0),
    };
  });
}
