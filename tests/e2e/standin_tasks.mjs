// The keyed half of the connection stand-in (standin_service.mjs): a team task list with a static
// key and no authorization server, at its own origin, through two doors: an MCP server at /mcp
// taking `Authorization: Bearer <key>`, and an HTTP API at /api described by /api/openapi.json
// taking `X-Api-Key: <key>`.
import { mcp, parse, sendJson, text } from './standin_parts.mjs';
import { readBody } from './http_body.mjs';

const TASKS = [
  { id: 't_1', title: 'Renew the domain name', done: false },
  { id: 't_2', title: 'Send the quarterly newsletter', done: true },
];

const TASK_TOOLS = [
  {
    name: 'list_tasks',
    title: 'List tasks',
    description: 'Lists the tasks of the team, done or not.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  {
    name: 'add_task',
    title: 'Add a task',
    description: 'Adds a task to the team list.',
    inputSchema: {
      type: 'object',
      properties: { title: { type: 'string', minLength: 1, maxLength: 200 } },
      required: ['title'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
];

/**
 * The task list's request handler at `base`, and its tasks.
 * @param {{base: string, keys: {mcp: string, api: string}, record: (req, res, route: string) => object}} options
 */
export function taskList({ base, keys, record }) {
  const state = { tasks: TASKS.map((t) => ({ ...t })) };

  function callTaskTool(name, args) {
    if (name === 'list_tasks') return text(state.tasks.map((t) => `${t.id} [${t.done ? 'x' : ' '}] ${t.title}`).join('\n'));
    const task = { id: `t_${state.tasks.length + 1}`, title: String(args.title), done: false };
    state.tasks.push(task);
    return text(`Added ${task.id}: ${task.title}`);
  }

  const handle = async (req, res) => {
    const url = new URL(req.url, base);
    try {
      if (url.pathname === '/mcp') {
        record(req, res, 'keyed_mcp');
        if (req.headers.authorization !== `Bearer ${keys.mcp}`) {
          // A 401 that names no authorization server: a key is the only way in.
          return sendJson(res, 401, { error: 'A valid key is required: Authorization: Bearer <key>.' }, { 'www-authenticate': 'Bearer realm="standin-tasks"' });
        }
        const body = parse(await readBody(req));
        if (body === null) return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return await mcp(req, res, body, TASK_TOOLS, callTaskTool, undefined);
      }
      if (url.pathname === '/api/openapi.json' && req.method === 'GET') {
        record(req, res, 'openapi');
        return sendJson(res, 200, openapiDocument(base));
      }
      if (url.pathname === '/api/tasks') {
        record(req, res, 'api');
        if (req.headers['x-api-key'] !== keys.api) return sendJson(res, 401, { error: 'A valid X-Api-Key header is required.' });
        if (req.method === 'GET') return sendJson(res, 200, { tasks: state.tasks });
        if (req.method === 'POST') {
          const body = parse(await readBody(req));
          if (typeof body?.title !== 'string' || !body.title) return sendJson(res, 400, { error: 'title must be a non-empty string' });
          const task = { id: `t_${state.tasks.length + 1}`, title: body.title, done: false };
          state.tasks.push(task);
          return sendJson(res, 201, task);
        }
        return sendJson(res, 405, { error: 'GET or POST' }, { allow: 'GET, POST' });
      }
      record(req, res, 'unknown');
      return sendJson(res, 404, { error: `no route ${req.method} ${url.pathname}` });
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: String(error?.message ?? error) });
      else res.destroy();
    }
    return undefined;
  };
  return { handle, tasks: () => state.tasks.map((t) => ({ ...t })) };
}

function openapiDocument(base) {
  const task = {
    type: 'object',
    properties: { id: { type: 'string' }, title: { type: 'string' }, done: { type: 'boolean' } },
    required: ['id', 'title', 'done'],
  };
  return {
    openapi: '3.1.0',
    info: { title: 'Stand-in tasks', version: '1.0.0', description: 'The team task list.' },
    servers: [{ url: `${base}/api` }],
    security: [{ apiKey: [] }],
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } }, schemas: { Task: task } },
    paths: {
      '/tasks': {
        get: {
          operationId: 'listTasks',
          summary: 'Lists the tasks of the team.',
          responses: {
            200: { description: 'The tasks.', content: { 'application/json': { schema: { type: 'object', properties: { tasks: { type: 'array', items: { $ref: '#/components/schemas/Task' } } } } } } },
            401: { description: 'No valid key.' },
          },
        },
        post: {
          operationId: 'createTask',
          summary: 'Adds a task to the team list.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', properties: { title: { type: 'string', minLength: 1 } }, required: ['title'] } } },
          },
          responses: {
            201: { description: 'The task added.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Task' } } } },
            400: { description: 'No title.' },
            401: { description: 'No valid key.' },
          },
        },
      },
    },
  };
}
