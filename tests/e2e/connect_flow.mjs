// What a person does on the runtime's connect page, in headless Chromium, for the connection tests:
// open the link the agent was given, sign in at the service or give the key, and approve.
import { signInAtService } from './standin_service.mjs';

/**
 * The providers of the stand-in service as an operator names them in CONNECTION_PROVIDERS: its
 * tracker, signed in at the service (with a `write` group of more), and its keyed task list.
 */
export const standinProviders = (service) => ({
  tracker: {
    title: 'Tracker',
    description: "Issues of the team's tracker, through its MCP server.",
    terms: ['issues', 'tracker', 'bugs'],
    server: { type: 'mcp', url: service.mcpUrl },
    ways: [{
      kind: 'authorization',
      issuer: service.issuer,
      client: 'dynamic',
      scopes: [{ name: 'issues:read', says: 'Read the issues you can see.' }],
      more: [{ name: 'write', for: 'Open and change issues as you.', scopes: [{ name: 'issues:write', says: 'Open and change issues as you.' }] }],
    }],
    failure_codes: ['invalid_token'],
  },
  tasks: {
    title: 'Tasks',
    description: 'The task list of the team.',
    terms: ['tasks', 'todo'],
    server: { type: 'mcp', url: service.keyedMcpUrl },
    ways: [{
      kind: 'secret', name: 'Authorization', in: 'header', scheme: 'Bearer',
      instructions: 'Make a key under [Settings, Keys](https://tasks.example/keys).',
      key_page: 'https://tasks.example/keys',
      example: 'tk_…',
      pattern: '^tk_[a-z0-9]{8}$',
    }],
  },
});

/** Presses the submit button of the page's form that posts to `step` (approve, start, credential…). */
export async function submit(page, step) {
  await Promise.all([page.waitForNavigation(), page.click(`form[action$="/${step}"] button[type=submit]`)]);
}

/**
 * Opens `url` in a new page of `browser` and approves the connection there: signs in at the service
 * as `person` (a login of the stand-in) for a consent, or types `key` for a key. Answers the page,
 * left open on what the runtime showed last, for the caller to read and close.
 */
export async function approveOnPage(browser, url, { person, key } = {}) {
  const page = await browser.newPage();
  await page.goto(url);
  if (key !== undefined) {
    await page.type('input[name=value]', key);
    await submit(page, 'credential');
  }
  if (person !== undefined) {
    await submit(page, 'start');
    await signInAtService(page, person);
  }
  await submit(page, 'approve');
  return page;
}
