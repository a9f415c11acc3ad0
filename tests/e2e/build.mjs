// Building only what is stale: the bench and the fault harness serve build/ as it is when it is
// newer than everything it is built from, and build it first otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT } from './harness.mjs';

/** What the runtime's build/ is made from. */
export const RUNTIME_INPUTS = ['src', 'guides', 'Cargo.toml', 'Cargo.lock'].map((p) => join(ROOT, p));

/** The newest modification time under some paths (files or folders), in ms; 0 when none exists. */
export function newest(paths) {
  let best = 0;
  const visit = (p) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) for (const entry of readdirSync(p)) visit(join(p, entry));
    else best = Math.max(best, s.mtimeMs);
  };
  paths.forEach(visit);
  return best;
}

/**
 * Runs `command` from the repository's root unless every file under `output` is newer than every
 * input; with `serveStale`, an output that exists is served even when older. `say` reports what
 * was done. Answers the seconds the build took and whether the output was reused.
 */
export function buildIfStale({ label, command, inputs, output, say, serveStale = false }) {
  const built = newest([output]);
  const fresh = built >= newest(inputs);
  if (built > 0 && (fresh || serveStale)) {
    say(fresh ? `${label}: build is fresh, reused` : `${label}: build is older than its sources, served as it is`);
    return { label, seconds: 0, reused: true };
  }
  say(`${label}: building (${command})`);
  const t0 = Date.now();
  const done = spawnSync(command, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (done.status !== 0) {
    process.stderr.write(`${done.stdout}\n${done.stderr}\n`);
    throw new Error(`${label}: ${command} failed`);
  }
  return { label, seconds: (Date.now() - t0) / 1000, reused: false };
}
