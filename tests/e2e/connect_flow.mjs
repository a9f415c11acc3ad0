// What a person does on the runtime's connect page, in headless Chromium, for the connection tests:
// open the link the agent was given, sign in at the service or give the key, and approve.
import { signInAtService } from './standin_service.mjs';

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
