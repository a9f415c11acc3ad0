// scripts/faults: what the runtime survives, in one run. Five parts, each on a runtime of its own
// in local workerd: restarts (hard kills at random moments with work in flight), hostile requests
// (malformed and hostile input to every endpoint), concurrency (duplicate run ids, many runs at
// once), tools (tool servers that drop, stall, answer garbage, gigantic bodies or error
// statuses while runs and calls by hand use them), and connections (a service's token endpoint
// failing during a consent and a refresh, a connection's server misbehaving, hostile links and
// forms on the connect page), and generation (a generation function's gateway answering garbage, a
// huge body, a url, bytes that lie, an error or nothing: the run fails with its reason and nothing
// is kept half-way), and trust (each hole a security review found tried again: a connection naming
// the runtime's secrets, a stopped sign-in sent to another browser, a token of org:write alone,
// bodies without a length, a flood of registrations, unverified addresses, a redirecting client
// document, a replayed refresh token, a forged Host; memory read before and after). Prints Markdown tables, writes them to FAULTS_OUT (default faults-results/results.md), and
// exits non-zero when any check failed.
//
// Arguments: the parts to run (restarts, hostile, concurrency, tools, connections, generation, trust; default all).
// Environment: FAULTS_SEED (replays the random moments and cases), FAULTS_RESTARTS (default 20),
// FAULTS_HOSTILE (the least number of hostile requests, default 10000), FAULTS_OUT,
// FAULTS_BUILD=never (serve build/ as it is, even when src/ is newer), FAULTS_KEEP=1 (keep the
// restarts' state directory, to look into it afterwards).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';

import { buildIfStale, RUNTIME_INPUTS } from '../e2e/build.mjs';
import { ROOT } from '../e2e/harness.mjs';
import { concurrency } from './concurrency.mjs';
import { connections } from './connections.mjs';
import { generation } from './generation.mjs';
import { hostile } from './hostile.mjs';
import { report } from './report.mjs';
import { restarts } from './restarts.mjs';
import { tools } from './tools.mjs';
import { trust } from './trust.mjs';

const env = process.env;
const PARTS = ['restarts', 'hostile', 'concurrency', 'tools', 'connections', 'generation', 'trust'];
const STARTED = Date.now();
// The whole run must end within 15 minutes; each part bounds its own loops well inside this.
const BUDGET_MS = 15 * 60_000;

function say(message) {
  const at = ((Date.now() - STARTED) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[faults ${at}s] ${message}\n`);
}

function gitCommit() {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=7'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Runs one part; a part that throws fails with one check that says why, and the run goes on. */
async function runPart(name, fn, checks) {
  say(`${name}: starting`);
  try {
    const { stats, checks: own } = await fn();
    checks.push(...own);
    say(`${name}: done, ${own.filter((c) => !c.ok).length} of ${own.length} checks failed`);
    return stats;
  } catch (error) {
    say(`${name}: aborted: ${error.stack ?? error}`);
    checks.push({ part: name, name: 'the part ran to its end', ok: false, detail: String(error.message ?? error).slice(0, 500) });
    return null;
  }
}

/** Prints the report of what ran, writes it to `out`, and sets the exit code: 1 when a check failed. */
function finish({ out, seed, parts, results, checks }) {
  const meta = {
    date: new Date().toISOString(),
    commit: gitCommit(),
    cores: os.cpus().length,
    node: process.version,
    seed,
    seconds: (Date.now() - STARTED) / 1000,
    skipped: PARTS.filter((p) => !parts.includes(p)),
  };
  const markdown = report({ meta, ...results, checks });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, markdown);
  process.stdout.write(markdown);
  const failed = checks.filter((c) => !c.ok);
  say(`wrote ${out}; ${failed.length ? `${failed.length} checks FAILED` : 'every check passed'}`);
  return failed.length ? 1 : 0;
}

async function main() {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !PARTS.includes(a));
  if (unknown.length) throw new Error(`unknown part ${unknown.join(', ')}: the parts are ${PARTS.join(', ')}`);
  const parts = asked.length ? asked : PARTS;
  const seed = Number(env.FAULTS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const out = env.FAULTS_OUT ?? join(ROOT, 'faults-results', 'results.md');
  say(`seed ${seed} (FAULTS_SEED=${seed} replays the random moments and cases)`);
  buildIfStale({
    label: 'runtime', command: join(ROOT, 'scripts', 'build'), inputs: RUNTIME_INPUTS, output: join(ROOT, 'build'),
    say, serveStale: env.FAULTS_BUILD === 'never',
  });

  const checks = [];
  const results = {};
  // A part that overruns the budget ends the run with the report of what finished, and a failed check.
  const watchdog = setTimeout(() => {
    checks.push({ part: 'all', name: `the run ended within ${BUDGET_MS / 60_000} minutes`, ok: false, detail: 'stopped while a part was running' });
    finish({ out, seed, parts, results, checks });
    process.exit(2); // the harness's exit hook kills the runtime still running
  }, BUDGET_MS);
  watchdog.unref();

  if (parts.includes('restarts')) {
    results.restarts = await runPart('restarts', () => restarts({ say, seed, cycles: Number(env.FAULTS_RESTARTS ?? 20), keep: env.FAULTS_KEEP === '1' }), checks);
  }
  if (parts.includes('hostile')) {
    results.hostile = await runPart('hostile', () => hostile({ say, seed, least: Number(env.FAULTS_HOSTILE ?? 10_000) }), checks);
  }
  if (parts.includes('concurrency')) {
    results.concurrency = await runPart('concurrency', () => concurrency({ say }), checks);
  }
  if (parts.includes('tools')) {
    results.tools = await runPart('tools', () => tools({ say }), checks);
  }
  if (parts.includes('connections')) {
    results.connections = await runPart('connections', () => connections({ say }), checks);
  }
  if (parts.includes('generation')) {
    results.generation = await runPart('generation', () => generation({ say }), checks);
  }
  if (parts.includes('trust')) {
    results.trust = await runPart('trust', () => trust({ say }), checks);
  }
  clearTimeout(watchdog);
  process.exitCode = finish({ out, seed, parts, results, checks });
}

main().catch((error) => {
  process.stderr.write(`faults failed: ${error.stack ?? error}\n`);
  process.exit(1);
});
