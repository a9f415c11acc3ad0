// Starting the runtime with the end-to-end harness, and ending it the way a crash or a pulled plug
// does. The harness's stop() sends SIGTERM and waits up to 10 seconds for workerd to close; a
// restart "at a random moment" must not give it that chance, so killHard() sends SIGKILL to the
// whole process group of that one runtime (wrangler and its workerd), found by the port it serves.
import { readdirSync, readFileSync } from 'node:fs';

import { panicLines, startRuntime } from '../e2e/harness.mjs';

/**
 * Starts the runtime on `stateDir`, with more Worker variables in `vars` (where the model stand-ins
 * and tool servers are), on `port` where one is given; every runtime started is kept in `logs` for
 * the panic check.
 */
export async function start(stateDir, logs, vars = {}, port = undefined) {
  const rt = await startRuntime({ stateDir, port, pollMs: 100, vars });
  logs.push(rt.logs);
  return rt;
}

/** The panic lines of every runtime of a part. */
export function panics(logs) {
  return logs.flatMap((read) => panicLines(read()));
}

/** The process group of the `wrangler dev` serving `port`: the harness starts each in a group of its own. */
function groupServing(port) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args;
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const at = args.indexOf('--port');
    if (at < 0 || args[at + 1] !== String(port) || !args.some((a) => a.endsWith('wrangler'))) continue;
    // Field 5 of /proc/<pid>/stat is the group; the command in field 2 may hold spaces, so read after its ')'.
    const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    if (pgid === Number(entry)) return pgid; // the group leader is the wrangler the harness spawned
  }
  return null;
}

/** Ends a runtime at once, as a crash would, then lets the harness forget it. */
export async function killHard(rt) {
  const pgid = groupServing(rt.port);
  if (pgid) {
    try { process.kill(-pgid, 'SIGKILL'); } catch (error) { if (error.code !== 'ESRCH') throw error; }
  }
  await rt.stop(); // finds the group gone: no SIGTERM reaches anything, it only clears its bookkeeping
  return Boolean(pgid);
}

/** The resident memory of a runtime's processes (wrangler and its workerd), in bytes. */
export function residentBytes(port) {
  const pgid = groupServing(port);
  if (!pgid) return null;
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const rss = readFileSync(`/proc/${entry}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
      if (rss) total += Number(rss[1]) * 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
