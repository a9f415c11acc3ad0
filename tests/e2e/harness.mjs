// Starts and stops the playbook runtime the way a developer does: `wrangler dev` serving the built Worker
// (build/worker/shim.mjs) in workerd on a loopback port, with its Durable Object state in a directory of
// the caller's choosing. startRuntime() resolves once GET /v1/guides answers; logs() returns everything
// wrangler and the Worker printed, so a test can assert that no "panicked" line appeared.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository root (/work/main). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Node 22 shipped as an npm package; wrangler and the conformance CLI need it (system node may be 20). */
export const NODE22 = join(ROOT, 'node_modules', '.bin', 'node');
const WRANGLER = join(ROOT, 'node_modules', '.bin', 'wrangler');

// Process groups of the runtimes this process started and has not stopped. If the process ends without
// stopping them (a test killed by the runner, Ctrl-C), the exit hook kills them so no workerd is orphaned.
const liveGroups = new Set();
let hooksInstalled = false;
function installExitHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) {
      try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
    }
  });
  // Without a handler these signals end the process without running 'exit' hooks. A caller that handles
  // a signal itself (run.mjs handles SIGINT) keeps its own handling.
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]]) {
    if (process.listenerCount(signal) === 0) process.on(signal, () => process.exit(code));
  }
}

/** A free TCP port on 127.0.0.1, found by binding port 0 and releasing it. */
/** The key the runtimes of the tests seal connections' credentials with: not a secret. */
export const E2E_CONNECTIONS_KEY = 'e2e-connections-key-not-a-secret-0123456789abcdef';

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Runs `wrangler dev` for the runtime and waits until it serves.
 * @param {{stateDir: string, port?: number, localUser?: string, timeoutMs?: number, config?: string, vars?: Record<string, string>, pollMs?: number, extraArgs?: string[], registryDir?: string}} options
 *   config: another wrangler configuration file (default: the repository's wrangler.toml)
 *   registryDir: the dev registry, where runtimes find each other's Durable Objects (default: one of
 *     the state directory's own, so that parallel runs stay apart)
 *   vars: more variables for the Worker, such as where the model providers are
 *   pollMs: how often to ask whether it serves yet (scripts/bench asks often, to time start-up)
 *   extraArgs: more arguments for `wrangler dev` (scripts/bench passes `--log-level warn`)
 * @returns {Promise<{url: string, port: number, stop: () => Promise<void>, logs: () => string}>}
 */
export async function startRuntime({ stateDir, port, localUser = 'tester', timeoutMs = 90_000, config, vars = {}, pollMs = 250, extraArgs = [], registryDir } = {}) {
  if (!stateDir) throw new Error('startRuntime needs a stateDir');
  mkdirSync(stateDir, { recursive: true });
  const listenPort = port ?? (await freePort());
  // An explicit inspector port, chosen like the listening port, so two runtimes never race for 9229.
  const inspectorPort = await freePort();
  const args = [
    'dev',
    '--ip', '127.0.0.1',
    '--port', String(listenPort),
    '--inspector-port', String(inspectorPort),
    '--persist-to', stateDir,
    '--var', `LOCAL_USER:${localUser}`,
    // Local mode is the operator's choice, as scripts/dev makes it; a test may turn it off with LOCAL_MODE:off.
    '--var', `LOCAL_MODE:${vars.LOCAL_MODE ?? 'on'}`,
    // A fixed test key to seal what people give connections with; a test may pass its own.
    '--var', `CONNECTIONS_KEY:${vars.CONNECTIONS_KEY ?? E2E_CONNECTIONS_KEY}`,
    '--show-interactive-dev-session=false', // no hotkeys, no prompt on stdin
    '--live-reload=false',
  ];
  for (const [name, value] of Object.entries(vars)) if (name !== 'CONNECTIONS_KEY' && name !== 'LOCAL_MODE') args.push('--var', `${name}:${value}`);
  if (config) args.push('--config', config);
  args.push(...extraArgs);
  const env = {
    ...process.env,
    // node_modules/.bin first: wrangler's `#!/usr/bin/env node` then finds Node 22.
    PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    WRANGLER_HIDE_BANNER: 'true', // the banner is what runs the npm update check
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    DO_NOT_TRACK: '1',
    WRANGLER_NO_SKILLS_UPDATE_PROMPTS: 'true',
    WRANGLER_CI_DISABLE_CONFIG_WATCHING: 'true',
    WRANGLER_REGISTRY_PATH: registryDir ?? join(stateDir, '.dev-registry'), // keep runtimes of parallel runs apart
    WRANGLER_LOG_PATH: join(stateDir, '.wrangler-logs'),
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
  const child = spawn(WRANGLER, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so stop() reaches workerd too
  });
  installExitHooks();
  liveGroups.add(child.pid);
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => { log += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk) => { log += chunk; });
  let exited = null;
  const exitPromise = new Promise((resolveExit) => {
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      // workerd may outlive wrangler for a moment: the group is killed in stop() or the exit hook.
      resolveExit(exited);
    });
    child.on('error', (error) => {
      log += `\n[harness] spawn error: ${error.message}\n`;
      exited = { code: -1, signal: null };
      resolveExit(exited);
    });
  });

  const url = `http://127.0.0.1:${listenPort}`;
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
      return true;
    } catch (error) {
      if (error.code === 'ESRCH') return false; // nothing of the group is left
      throw error;
    }
  };
  const stop = async () => {
    if (!liveGroups.has(child.pid)) return;
    if (!exited && killGroup('SIGTERM')) {
      const done = await Promise.race([exitPromise, sleep(10_000).then(() => null)]);
      if (!done) killGroup('SIGKILL');
      await Promise.race([exitPromise, sleep(5_000)]);
    }
    // wrangler may be gone while workerd lingers: make sure the whole group is.
    killGroup('SIGKILL');
    liveGroups.delete(child.pid);
  };

  const deadline = Date.now() + timeoutMs;
  let lastError = 'no attempt yet';
  while (Date.now() < deadline) {
    if (exited) {
      throw new Error(`wrangler dev exited (${JSON.stringify(exited)}) before serving ${url}\n--- log ---\n${log}`);
    }
    try {
      const res = await fetch(`${url}/v1/guides`, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      return { url, port: listenPort, inspectorPort, stop, logs: () => log };
    } catch (error) {
      lastError = error.cause?.code ?? error.message;
    }
    await sleep(pollMs);
  }
  await stop();
  throw new Error(`runtime at ${url} did not answer GET /v1/guides within ${timeoutMs} ms (${lastError})\n--- log ---\n${log}`);
}

/** The lines of a log that report a Rust panic. */
export function panicLines(log) {
  return log.split('\n').filter((line) => line.includes('panicked'));
}
