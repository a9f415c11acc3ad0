// How cost grows with what is stored: a workflow run's history read whole page by page, the run
// itself, and a definition with many versions. One workflow of 50 steps (the most a workflow
// holds) runs to its end; its history is then grown inside the playbook's own store (multiply.mjs
// says why) to 2,000 and 10,000 events, and one definition's versions to 10,000, with the runtime
// stopped; each read is measured at every size on the same state.
import { callTool } from './mcp.mjs';
import { multiplyRows, playbookStore } from './multiply.mjs';
import { followRun, workflowSource } from './workflow.mjs';

export const TREE_STEPS = 50;
export const HISTORY_SIZES = [2_000, 10_000];
export const VERSIONS = 10_000;
/** Versions made through the API before they are multiplied: each update is a new version. */
const VERSIONS_MADE = 20;

/** Counts a run tree's events by reading its history through, as an agent would. */
async function historyLength(base, playbook, runId) {
  let count = 0;
  let cursor;
  do {
    const page = await callTool(base, 'list_playbook_events', { playbook, run_id: runId, limit: 200, ...(cursor ? { cursor } : {}) });
    count += page.events.length;
    cursor = page.next_cursor;
  } while (cursor);
  return count;
}

/**
 * Readies the playbook: `add-vat`, a workflow of TREE_STEPS steps run once to its end, and
 * VERSIONS_MADE versions of `add-vat`. Answers what the reads need.
 */
export async function prepareGrowth(base, org, playbook, { sourceOf, overview, diagram }) {
  await callTool(base, 'create_definition', {
    playbook, type: 'workflow', name: 'fifty', source: workflowSource(TREE_STEPS),
    overview: `Adds VAT ${TREE_STEPS} times over, each step on the gross amount of the step before.`,
  });
  const started = await callTool(base, 'run_definition', { playbook, type: 'workflow', name: 'fifty', input: { net: 100 } });
  const run = await followRun(`${base}/v1/orgs/${org}/playbooks/${playbook}`, started, 120_000);
  if (run.status !== 'succeeded') throw new Error(`the ${TREE_STEPS}-step workflow ended ${run.status}: ${JSON.stringify(run.error)}`);
  for (let i = 1; i < VERSIONS_MADE; i += 1) {
    await callTool(base, 'update_definition', {
      playbook, type: 'computation', name: 'add-vat', source: sourceOf(i), overview, diagram,
    });
  }
  const events = await historyLength(base, playbook, run.run_id);
  return { runId: run.run_id, events, versions: VERSIONS_MADE };
}

/**
 * Grows the stopped runtime's store: the playbook's events by `eventTimes`, versions by
 * `versionTimes`. workerd may hold the store a moment after it was told to stop, so the store is
 * looked for again for a few seconds.
 */
export async function grow(stateDir, playbook, eventTimes, versionTimes) {
  let file;
  for (let tries = 0; !file; tries += 1) {
    try {
      file = playbookStore(stateDir, playbook);
    } catch (error) {
      if (tries >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  const events = eventTimes > 1 ? multiplyRows(file, ['events'], eventTimes) : null;
  const versions = versionTimes > 1 ? multiplyRows(file, ['definition_versions'], versionTimes) : null;
  return { events, versions };
}

/** The reads measured at each size: the run's first page of history, the run, a definition. */
export function growthReads(playbook, runId) {
  return {
    history: { tool: 'list_playbook_events', args: { playbook, run_id: runId } },
    run: { tool: 'get_run', args: { playbook, run_id: runId } },
    definition: { tool: 'get_definition', args: { playbook, type: 'computation', name: 'add-vat' } },
  };
}

export const CONNECTIONS = 500;

/** The body of one `add_connection` of the bench's tool server, by hand, under a name of its own. */
export function connectionBody(url) {
  let made = 0;
  return () => {
    made += 1;
    return JSON.stringify({
      jsonrpc: '2.0', id: made, method: 'tools/call',
      params: { name: 'add_connection', arguments: { name: `bench-${made}`, type: 'mcp', entry: { url }, credential: { kind: 'none' } } },
    });
  };
}
