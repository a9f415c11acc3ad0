// Stand-ins for the model providers a reasoning function reaches, speaking each API's real wire
// format over loopback: the Anthropic Messages API (POST /v1/messages, GET /v1/models) and an
// OpenAI-compatible Chat Completions API (POST /v1/chat/completions, GET /v1/models). They check
// the key as the real services do and answer what a test scripted for a model id.
//
// A test scripts and inspects them over plain HTTP, since it runs in another process than run.mjs:
//   POST /__script   { model, text?, stop?, delay_ms?, status?, error?, message? }
//                    sets how that model answers every request
//   POST /__script   { model, turns: [turn, …] }
//                    scripts a conversation up front: a request is answered by the turn whose index is the
//                    number of assistant messages it already carries, so a run's whole tool loop is
//                    scripted before it starts. A turn is { tool_calls: [{ name, input }] } (with text? too),
//                    or an answer as above ({ text, stop?, delay_ms?, status?, … }). A call's name is the
//                    tool's own (read_text_file) or the name the runtime offered it under
//                    (files__read_text_file): it resolves to the offered tool whose name equals it or ends
//                    with __<name>, and a name no offered tool has is refused with a 400 as the provider
//                    would. Each call gets an id of its own.
//   GET  /__requests?model=<id>                                           the requests it received
//
// As the real APIs do, a request whose messages carry tool results must answer exactly the calls of
// the assistant message before them (Anthropic: tool_result blocks in the next user message; OpenAI:
// one role "tool" message per tool_call_id), or it is refused with a 400, so that a runtime bug shows.
//
// The OpenAI-compatible stand-in also serves the Images and Audio APIs a generation function reaches
// (POST /v1/images/generations, /v1/images/edits, /v1/audio/speech), answering real PNG and MP3
// bytes; standin_media.mjs says how a test scripts and reads them.
import { randomBytes } from 'node:crypto';
import http from 'node:http';

import { answerMedia, MEDIA_PATHS } from './standin_media.mjs';

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

function refuse(res, api, status, type, message) {
  return api === 'anthropic' ? anthropicError(res, status, type, message) : openaiError(res, status, type, message);
}

/** The names of the tools a request offers, in either API's format. */
function offeredTools(api, body) {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.map((t) => (api === 'anthropic' ? t?.name : t?.function?.name)).filter((n) => typeof n === 'string');
}

/** The offered tool a scripted call names: its own name, or the end of an offered name after `__`. */
function resolveTool(offered, name) {
  if (offered.includes(name)) return { name };
  const found = offered.filter((o) => o.endsWith(`__${name}`));
  if (found.length === 1) return { name: found[0] };
  if (found.length > 1) return { error: `the script calls ${name}, which names ${found.length} offered tools (${found.join(', ')}): name one whole` };
  return { error: `the model called the tool ${name}, which the request does not offer (it offers ${offered.length ? offered.join(', ') : 'no tools'})` };
}

const callId = (api) => `${api === 'anthropic' ? 'toolu_' : 'call_'}${randomBytes(12).toString('hex')}`;

/**
 * What the real API says of a conversation whose tool results do not answer the calls before them,
 * or null when they do.
 */
function toolPairingProblem(api, messages) {
  if (!Array.isArray(messages)) return null;
  if (api === 'anthropic') {
    const blocks = (m, type) => (Array.isArray(m?.content) ? m.content.filter((b) => b?.type === type) : []);
    for (let i = 0; i < messages.length; i += 1) {
      const calls = messages[i].role === 'assistant' ? blocks(messages[i], 'tool_use').map((b) => b.id) : [];
      const results = messages[i].role === 'user' ? blocks(messages[i], 'tool_result').map((b) => b.tool_use_id) : [];
      if (calls.length) {
        const answered = blocks(messages[i + 1], 'tool_result').map((b) => b.tool_use_id);
        const missing = calls.filter((id) => !answered.includes(id));
        // A call must be answered in the very next message before the model is asked again.
        if (missing.length) {
          return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
        }
      }
      if (results.length) {
        const asked = blocks(messages[i - 1], 'tool_use').map((b) => b.id);
        const stray = results.filter((id) => !asked.includes(id));
        if (messages[i - 1]?.role !== 'assistant' || stray.length) {
          return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${stray.join(', ') || results.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
    return null;
  }
  for (let i = 0; i < messages.length; i += 1) {
    const m = messages[i];
    if (m?.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length) {
      const answered = [];
      for (let j = i + 1; j < messages.length && messages[j]?.role === 'tool'; j += 1) answered.push(messages[j].tool_call_id);
      const missing = m.tool_calls.map((c) => c.id).filter((id) => !answered.includes(id));
      if (missing.length) {
        return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`;
      }
    }
    if (m?.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j]?.role === 'tool') j -= 1;
      const asked = messages[j]?.role === 'assistant' && Array.isArray(messages[j].tool_calls) ? messages[j].tool_calls.map((c) => c.id) : [];
      if (!asked.includes(m.tool_call_id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[${i}].tool_call_id ${m.tool_call_id} answers no call.)`;
      }
    }
  }
  return null;
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
      if (script.turns !== undefined && (!Array.isArray(script.turns) || script.turns.some((t) => !t || typeof t !== 'object'))) {
        return send(res, 400, { error: 'turns must be a list of objects' });
      }
      scripts.set(script.model, script);
      return send(res, 200, { scripted: script.model, turns: script.turns?.length ?? null });
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
    if (api === 'openai' && req.method === 'POST' && MEDIA_PATHS.includes(url.pathname)) {
      return answerMedia(req, res, url.pathname, Buffer.concat(chunks), scripts, received);
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
    const scripted = scripts.get(body.model);
    // The turn of a conversation is the number of the model's answers the request already carries.
    const turn = Array.isArray(body.messages) ? body.messages.filter((m) => m?.role === 'assistant').length : 0;
    received.push({ at: new Date().toISOString(), headers: { ...req.headers }, body, turn: scripted?.turns ? turn : null });
    if (!scripted) {
      return api === 'anthropic'
        ? anthropicError(res, 404, 'not_found_error', `model: ${body.model}`)
        : openaiError(res, 404, 'invalid_request_error', `The model \`${body.model}\` does not exist.`);
    }
    const pairing = toolPairingProblem(api, body.messages);
    if (pairing) return refuse(res, api, 400, 'invalid_request_error', pairing);
    const script = scripted.turns ? scripted.turns[turn] : scripted;
    if (!script) {
      return refuse(res, api, 400, 'invalid_request_error',
        `The stand-in's script of ${body.model} has ${scripted.turns.length} turns, and this request is turn ${turn + 1} (it carries ${turn} assistant messages).`);
    }
    const offered = offeredTools(api, body);
    const calls = [];
    for (const call of script.tool_calls ?? []) {
      const tool = resolveTool(offered, call.name);
      if (tool.error) return refuse(res, api, 400, 'invalid_request_error', tool.error);
      calls.push({ id: callId(api), name: tool.name, input: call.input ?? {} });
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
      const text = script.stop === 'refusal' || (calls.length && script.text === undefined) ? [] : [{ type: 'text', text: script.text ?? '' }];
      return send(res, 200, {
        id: `msg_${received.length}`, type: 'message', role: 'assistant', model: body.model,
        content: [...text, ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }))],
        stop_reason: script.stop ?? (calls.length ? 'tool_use' : 'end_turn'), stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      });
    }
    const refused = script.stop === 'refusal';
    const message = { role: 'assistant', content: refused ? null : (script.text ?? (calls.length ? null : '')), refusal: refused ? (script.text ?? 'I cannot help.') : null };
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
    }
    return send(res, 200, {
      id: `chatcmpl-${received.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
      choices: [{
        index: 0,
        message,
        finish_reason: script.stop ?? (calls.length ? 'tool_calls' : 'stop'),
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
