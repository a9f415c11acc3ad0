// Stand-ins for the model providers a reasoning function reaches, speaking each API's real wire
// format over loopback: the Anthropic Messages API (POST /v1/messages, GET /v1/models) and an
// OpenAI-compatible Chat Completions API (POST /v1/chat/completions, GET /v1/models). They check
// the key as the real services do and answer what a test scripted for a model id.
//
// A test scripts and inspects them over plain HTTP, since it runs in another process than run.mjs:
//   POST /__script   { model, text?, stop?, delay_ms?, status?, error? }  sets how that model answers
//   GET  /__requests?model=<id>                                           the requests it received
import http from 'node:http';

const LISTS = {
  anthropic: [
    { id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z', type: 'model' },
    { id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z', type: 'model' },
  ],
  openai: [
    { id: 'gpt-4.1', object: 'model', created: 1744316542, owned_by: 'system' },
    { id: 'gpt-4.1-mini', object: 'model', created: 1744318173, owned_by: 'system' },
  ],
};

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function anthropicError(res, status, type, message) {
  send(res, status, { type: 'error', error: { type, message } });
}

function openaiError(res, status, type, message) {
  send(res, status, { error: { message, type, param: null, code: null } });
}

/**
 * Starts one stand-in on a free loopback port.
 * @param {'anthropic'|'openai'} api
 * @param {string} key the key it accepts
 */
export async function startStandin(api, key) {
  const scripts = new Map();
  const received = [];
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url, 'http://standin');
    if (url.pathname === '/__script' && req.method === 'POST') {
      const script = JSON.parse(text);
      scripts.set(script.model, script);
      return send(res, 200, { scripted: script.model });
    }
    if (url.pathname === '/__requests') {
      const model = url.searchParams.get('model');
      return send(res, 200, received.filter((r) => !model || r.body?.model === model));
    }
    const keyOk = api === 'anthropic'
      ? req.headers['x-api-key'] === key && Boolean(req.headers['anthropic-version'])
      : req.headers.authorization === `Bearer ${key}`;
    if (!keyOk) {
      return api === 'anthropic'
        ? anthropicError(res, 401, 'authentication_error', 'invalid x-api-key')
        : openaiError(res, 401, 'invalid_request_error', 'Incorrect API key provided.');
    }
    if (url.pathname === '/v1/models' && req.method === 'GET') {
      return api === 'anthropic'
        ? send(res, 200, { data: LISTS.anthropic, has_more: false, first_id: LISTS.anthropic[0].id, last_id: LISTS.anthropic.at(-1).id })
        : send(res, 200, { object: 'list', data: LISTS.openai });
    }
    const path = api === 'anthropic' ? '/v1/messages' : '/v1/chat/completions';
    if (url.pathname !== path || req.method !== 'POST') return send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      return api === 'anthropic'
        ? anthropicError(res, 400, 'invalid_request_error', 'body is not JSON')
        : openaiError(res, 400, 'invalid_request_error', 'body is not JSON');
    }
    received.push({ at: new Date().toISOString(), headers: { ...req.headers }, body });
    const script = scripts.get(body.model);
    if (!script) {
      return api === 'anthropic'
        ? anthropicError(res, 404, 'not_found_error', `model: ${body.model}`)
        : openaiError(res, 404, 'invalid_request_error', `The model \`${body.model}\` does not exist.`);
    }
    if (script.delay_ms) await new Promise((resolve) => { setTimeout(resolve, script.delay_ms); });
    if (res.destroyed) return undefined;
    if (script.status) {
      return api === 'anthropic'
        ? anthropicError(res, script.status, script.error ?? 'api_error', script.message ?? 'scripted failure')
        : openaiError(res, script.status, script.error ?? 'server_error', script.message ?? 'scripted failure');
    }
    const usage = { input: 40, output: 12 };
    if (api === 'anthropic') {
      return send(res, 200, {
        id: `msg_${received.length}`, type: 'message', role: 'assistant', model: body.model,
        content: script.stop === 'refusal' ? [] : [{ type: 'text', text: script.text ?? '' }],
        stop_reason: script.stop ?? 'end_turn', stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      });
    }
    const refused = script.stop === 'refusal';
    return send(res, 200, {
      id: `chatcmpl-${received.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
      choices: [{
        index: 0,
        message: { role: 'assistant', content: refused ? null : (script.text ?? ''), refusal: refused ? (script.text ?? 'I cannot help.') : null },
        finish_reason: script.stop ?? 'stop',
      }],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
    });
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }) };
}

export const ANTHROPIC_KEY = 'sk-ant-standin-key';
export const OPENAI_KEY = 'sk-openai-standin-key';

/** Starts both stand-ins, and the runtime's variables that point the real provider code at them. */
export async function startModelStandins() {
  const anthropic = await startStandin('anthropic', ANTHROPIC_KEY);
  const openai = await startStandin('openai', OPENAI_KEY);
  const vars = {
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${openai.url}/v1`,
    // hasty: the same OpenAI-compatible server as a gateway that waits 2 seconds at most;
    // offline: a gateway nobody answers at, so a list of every provider is partial.
    MODEL_GATEWAYS: JSON.stringify({
      hasty: { base_url: `${openai.url}/v1`, key: 'OPENAI_API_KEY', timeout_seconds: 2 },
      offline: { base_url: 'http://127.0.0.1:9/v1' },
    }),
    MODEL_ALIASES: JSON.stringify({ 'house/fast': 'anthropic/claude-haiku-4-5' }),
    ALLOWED_MODELS: 'anthropic/*,openai/*,hasty/*,offline/*,house/fast,mistral/*',
  };
  return {
    anthropic, openai, vars,
    close: () => Promise.all([anthropic.close(), openai.close()]),
  };
}
