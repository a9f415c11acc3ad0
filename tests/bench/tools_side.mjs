// The servers the bench's tool rows reach, in a process of their own, so that autocannon in the
// bench's process shares no event loop with them: the Anthropic model stand-in of the end-to-end
// suite and the bench's tool server. It prints one line of JSON, their addresses, and serves until
// its stdin closes, which it does when the bench ends, however it ends.
import { ANTHROPIC_KEY, startStandin } from '../e2e/standin_models.mjs';
import { startBenchToolServer } from './tool_server.mjs';

const model = await startStandin('anthropic', ANTHROPIC_KEY);
const tools = await startBenchToolServer();
process.stdout.write(`${JSON.stringify({ model: model.url, key: ANTHROPIC_KEY, tools: tools.base })}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
