// The wire every MCP row of the bench uses, the same for the runtime and the TypeScript server:
// POST /mcp, streamable HTTP without a session, revision 2025-06-18 named in its header, no
// `initialize` first (both servers are stateless), the answer read from the event stream.

import { ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW } from '../e2e/fixtures.mjs';

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

let nextId = 1;

/** The JSON-RPC body of a method. */
export function rpcBody(method, params) {
  const body = { jsonrpc: '2.0', id: nextId++, method };
  if (params !== undefined) body.params = params;
  return JSON.stringify(body);
}

/** The body of a tools/call. */
export function toolBody(name, args) {
  return rpcBody('tools/call', { name, arguments: args });
}

/** Whether an answer under load failed though its status was 2xx: a JSON-RPC error or a tool error. */
export function mcpFailed(text) {
  return text.includes('"isError":true') || /"error":\{"code"/.test(text);
}

/** The one JSON-RPC message of an answer, from an event stream or a JSON body. */
export function readAnswer(text) {
  const data = text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''));
  return JSON.parse(data.length ? data.join('\n') : text);
}

/** Calls a tool once and answers its structured content; throws on any failure. */
export async function callTool(base, name, args) {
  const res = await fetch(`${base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: toolBody(name, args) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  const message = readAnswer(text);
  if (message.error || message.result?.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(message.error ?? message.result.content).slice(0, 500)}`);
  }
  return message.result.structuredContent;
}

/** Sends a method once and answers its result; throws on any failure. */
export async function callMethod(base, method, params) {
  const res = await fetch(`${base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: rpcBody(method, params) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  const message = readAnswer(text);
  if (message.error) throw new Error(`${method} failed: ${JSON.stringify(message.error)}`);
  return message.result;
}

/** A new playbook named `name` holding the computation `add-vat`; answers its id. */
export async function playbookWithAddVat(base, name) {
  const pb = await callTool(base, 'create_playbook', { name });
  await callTool(base, 'create_definition', {
    playbook: pb.id, type: 'computation', name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM,
  });
  return pb.id;
}
