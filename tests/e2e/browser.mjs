// Headless Chromium for the page tests: Debian's /usr/bin/chromium (scripts/setup installs it) driven
// by puppeteer-core, which brings no browser of its own. Each browser gets a fresh profile in a
// temporary folder, removed with it, so no cookie or sign-in carries from one test to the next.
//
//   await withPage(async (page) => { await page.goto(url); ... });   // closed even when it throws
//
// or, for a browser that lives through several tests: const b = await launchBrowser(); ... await b.close();
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// What Chromium needs on these machines: as root it refuses to start without --no-sandbox; the
// network is closed, so its background connections (updates, sync, safe browsing) only fail, many
// at a time, and slow its start.
const FLAGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-dev-shm-usage',
  '--metrics-recording-only',
  '--password-store=basic',
];

/**
 * Starts a headless Chromium with an empty profile.
 * @returns {Promise<{browser: import('puppeteer-core').Browser, newPage: () => Promise<import('puppeteer-core').Page>, close: () => Promise<void>}>}
 */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/setup, which installs Debian's chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'e2e-chromium-'));
  const args = [...FLAGS, `--user-data-dir=${profile}`];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  let browser;
  try {
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args, timeout: 30_000 });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  let closing;
  const close = () => {
    closing ??= (async () => {
      // A browser that will not close in time is killed: a test must not hang on its clean-up.
      await Promise.race([browser.close(), new Promise((r) => { setTimeout(r, 5_000).unref(); })]).catch(() => {});
      browser.process()?.kill('SIGKILL');
      rmSync(profile, { recursive: true, force: true });
    })();
    return closing;
  };
  const newPage = async () => {
    const page = await browser.newPage();
    // Short enough that a page that never comes fails its test in seconds, not at the runner's limit.
    page.setDefaultTimeout(15_000);
    page.setDefaultNavigationTimeout(15_000);
    return page;
  };
  return { browser, newPage, close };
}

/** Runs `fn` with a page of a new browser, and closes the browser whatever `fn` did. */
export async function withPage(fn) {
  const b = await launchBrowser();
  try {
    return await fn(await b.newPage(), b);
  } finally {
    await b.close();
  }
}
