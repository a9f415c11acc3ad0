// The playbook the fault harness drives: a computation, an interaction a person answers, and three
// workflows that keep work in flight across a restart (a wait for a time, then a computation, then
// a person; a wait for an event; and one started by its own triggers). The guides `workflow` and
// `triggers` are the reference for these documents.
import { ADD_VAT } from '../e2e/fixtures.mjs';
import { api, must } from './wire.mjs';

export { ADD_VAT };

const CONFIRM = `---
description: Asks a person for a yes or no
input: { schema: { type: object } }
ask:
  deliver: agent
  answer: { schema: { type: object, properties: { ok: { type: boolean } }, required: [ok] } }
---
Shall we go on?
`;

/** Waits a few seconds (so a restart falls inside the wait), prices, then asks a person. */
const SETTLE = `---
description: Waits a moment, prices an order, then asks a person to confirm it
input: { schema: { type: object } }
steps:
  - id: settle
    wait: { seconds: 3 }
  - id: price
    function: computation/add-vat
    input:
      net: "100"
  - id: confirm
    function: interaction/confirm
---
`;

/** Waits for the run event `go`, which the harness sends some time later, then prices. */
const AWAIT_GO = `---
description: Waits for the event go, then prices an order
input: { schema: { type: object } }
steps:
  - id: go
    wait: { event: go, timeout_seconds: 3600 }
  - id: price
    function: computation/add-vat
    input:
      net: "100"
---
`;

/**
 * Started by its triggers only: set times spread over the restarts (triggers 0 to n-1, each with at
 * most 50, a trigger's limit), and a schedule due every minute (trigger n), so that runs fall due
 * while the runtime is up, while it is down, and in the middle of a restart. Times are in ms since
 * the epoch.
 */
function ticking(atGroups) {
  const at = atGroups.map((times) => `  - at: [${times.map((t) => `"${new Date(t).toISOString()}"`).join(', ')}]`);
  return `---
description: Prices an order at set times and every minute
input: { schema: { type: object } }
triggers:
${at.join('\n')}
  - cron: "* * * * *"
steps:
  - id: settle
    wait: { seconds: 2 }
  - id: price
    function: computation/add-vat
    input:
      net: "100"
---
`;
}

export const ANSWER = { ok: true };
export const VAT_INPUT = { net: 100 };
export const VAT_OUTPUT = { vat: 20, gross: 120 };

const DIAGRAM = 'flowchart LR\n  A[input] --> B[output]';
const overview = (name, type) =>
  `The ${type} ${name} of the fault harness does what its description says, nothing more.`;

/** Saves one definition; a function takes a diagram, a workflow none. */
async function define(client, type, name, source) {
  const body = { name, source, overview: overview(name, type), ...(type === 'workflow' ? {} : { diagram: DIAGRAM }) };
  must(await client.post(`/definitions/${type}`, body), `create ${type}/${name}`);
}

/** A new playbook holding add-vat, and the interaction and workflows when `workflows` is set. */
export async function createPlaybook(base, name, { workflows = false, atGroups = [] } = {}) {
  const made = must(await api(base).post('', { name }), 'create_playbook');
  const client = api(base, made.id);
  await define(client, 'computation', 'add-vat', ADD_VAT);
  if (workflows) {
    await define(client, 'interaction', 'confirm', CONFIRM);
    await define(client, 'workflow', 'settle', SETTLE);
    await define(client, 'workflow', 'await-go', AWAIT_GO);
    if (atGroups.length) await define(client, 'workflow', 'ticking', ticking(atGroups));
  }
  return made.id;
}
