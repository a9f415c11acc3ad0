// Runs the end-to-end suite: one runtime (wrangler dev on a fresh temporary state directory) shared by
// every *.test.mjs through the env RUNTIME_URL (and ADMIN_TOKEN, the operator's token it was started with),
// the files run one at a time by node's test runner, and the runtime stopped afterwards whatever happened.
// Before the runtime it starts the model stand-ins (standin_models.mjs) and the tool servers
// (tool_servers.mjs), whose variables the runtime is started with and whose addresses the test files
// read from their env (STANDIN_*_URL, E2E_TOOL_SERVERS). Fails when a test fails or the Worker's log
// shows a panic.
//
//   node tests/e2e/run.mjs                 # every *.test.mjs in tests/e2e
//   node tests/e2e/run.mjs http_api mcp_    # only the files whose name contains one of the words
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { panicLines, ROOT, startRuntime } from './harness.mjs';
import { startModelStandins } from './standin_models.mjs';
import { startToolServers } from './tool_servers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
// The operator's token for the shared runtime: a fixed test value, long enough (≥ 32) to be taken.
const ADMIN_TOKEN = 'e2e-operator-token-not-a-secret-0123456789';
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.test.mjs'))
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort()
  .map((f) => join(here, f));
if (files.length === 0) {
  console.error(`no test file matches ${filters.join(' ')}`);
  process.exit(2);
}

const stateDir = mkdtempSync(join(tmpdir(), 'runtime-e2e-'));
let runtime;
let standins;
let toolServers;
let testProcess;
let interrupted = false;

let cleaning;
function cleanUp() {
  cleaning ??= (async () => {
    if (testProcess && testProcess.exitCode === null) testProcess.kill('SIGTERM');
    if (runtime) await runtime.stop();
    if (standins) await standins.close();
    if (toolServers) await toolServers.close();
    rmSync(stateDir, { recursive: true, force: true });
  })();
  return cleaning;
}

process.on('SIGINT', () => {
  if (interrupted) return;
  interrupted = true;
  console.error('\ninterrupted: stopping the runtime');
  cleanUp().finally(() => process.exit(130));
});

let exitCode = 1;
try {
  standins = await startModelStandins();
  toolServers = await startToolServers();
  runtime = await startRuntime({ stateDir, vars: { ...standins.vars, ...toolServers.vars, ADMIN_TOKEN } });
  console.log(`runtime ready at ${runtime.url} (state in ${stateDir})`);
  exitCode = await new Promise((resolveCode) => {
    testProcess = spawn(process.execPath, ['--test', '--test-concurrency=1', ...files], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        RUNTIME_URL: runtime.url,
        ADMIN_TOKEN,
        STANDIN_ANTHROPIC_URL: standins.anthropic.url,
        STANDIN_OPENAI_URL: standins.openai.url,
        E2E_TOOL_SERVERS: JSON.stringify({ settings: toolServers.settings, servers: toolServers.servers }),
      },
    });
    testProcess.on('exit', (code, signal) => resolveCode(code ?? (signal ? 1 : 0)));
  });
  const panics = panicLines(runtime.logs());
  if (panics.length > 0) {
    console.error(`\nthe Worker panicked ${panics.length} time(s):\n${panics.join('\n')}`);
    exitCode = exitCode || 1;
  }
  if (!interrupted && (exitCode !== 0 || process.env.E2E_SHOW_LOG)) {
    const logFile = join(tmpdir(), `runtime-e2e-${Date.now()}.log`);
    const serverLogs = Object.entries(toolServers.logs())
      .map(([name, text]) => `\n--- last output of the tool server ${name} ---\n${text}`).join('');
    writeFileSync(logFile, runtime.logs() + serverLogs);
    const tail = runtime.logs().split('\n').slice(-80).join('\n');
    console.error(`\n--- last lines of the runtime log (whole log: ${logFile}) ---\n${tail}`);
  }
} catch (error) {
  console.error(error.stack ?? String(error));
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(interrupted ? 130 : exitCode);
