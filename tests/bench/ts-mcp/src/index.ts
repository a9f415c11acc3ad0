// What a user would write instead of the runtime: an MCP server in TypeScript on the official SDK,
// served by workerd, keeping its playbooks in a SQLite-backed Durable Object. It serves the same
// three playbook tools over the same wire (POST /mcp, streamable HTTP without sessions, answers as
// an event stream, a summary and the JSON of the playbook as the result's two text blocks), so the
// bench can hold the runtime's figures against it. It is a yardstick, not a second runtime: no
// pages, no lifecycle, no limits beyond the name's length.
import { DurableObject } from 'cloudflare:workers';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';

interface Env {
  PLAYBOOKS: DurableObjectNamespace<PlaybookStore>;
}

interface Playbook {
  id: string;
  name: string;
  description: string;
  status: 'active' | 'retired';
  created_at: string;
  updated_at: string;
}

type Outcome = { ok: true; playbook: Playbook } | { ok: false; reason: 'conflict' | 'not_found'; detail: string };

/** One org's playbooks, one row each. */
export class PlaybookStore extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS playbooks (
      id TEXT PRIMARY KEY, name TEXT NOT NULL, name_key TEXT NOT NULL, description TEXT NOT NULL,
      status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS playbooks_name ON playbooks (name_key) WHERE status = 'active';`);
  }

  create(name: string, description: string): Outcome {
    const key = name.trim().toLowerCase();
    const taken = this.ctx.storage.sql
      .exec("SELECT id FROM playbooks WHERE name_key = ? AND status = 'active'", key)
      .toArray();
    if (taken.length > 0) {
      return { ok: false, reason: 'conflict', detail: `A playbook named "${name}" already exists.` };
    }
    const now = new Date().toISOString();
    const playbook: Playbook = {
      id: newId(), name, description, status: 'active', created_at: now, updated_at: now,
    };
    this.ctx.storage.sql.exec(
      'INSERT INTO playbooks (id, name, name_key, description, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      playbook.id, name, key, description, playbook.status, now, now,
    );
    return { ok: true, playbook };
  }

  get(id: string): Outcome {
    const rows = this.ctx.storage.sql
      .exec('SELECT id, name, description, status, created_at, updated_at FROM playbooks WHERE id = ?', id)
      .toArray();
    if (rows.length === 0) return { ok: false, reason: 'not_found', detail: `No playbook has the id ${id}.` };
    return { ok: true, playbook: rows[0] as unknown as Playbook };
  }
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'pb_' + Array.from(bytes, (b) => ALPHABET[b % 32]).join('');
}

/** A tool result as the runtime shapes it: words first, then the JSON, and the JSON as structured content. */
function answer(outcome: Outcome, said: (p: Playbook) => string) {
  if (!outcome.ok) {
    const problem = { reason: outcome.reason, detail: outcome.detail };
    return {
      isError: true,
      content: [
        { type: 'text' as const, text: outcome.detail },
        { type: 'text' as const, text: JSON.stringify(problem) },
      ],
    };
  }
  const record = { ...outcome.playbook };
  return {
    content: [
      { type: 'text' as const, text: said(record) },
      { type: 'text' as const, text: JSON.stringify(record) },
    ],
    structuredContent: record as unknown as Record<string, unknown>,
  };
}

function server(env: Env): McpServer {
  const mcp = new McpServer({ name: 'bench-ts-mcp', version: '1.0.0' });
  const store = () => env.PLAYBOOKS.get(env.PLAYBOOKS.idFromName('local'));
  mcp.registerTool('create_playbook', {
    title: 'Create a playbook',
    description: 'Creates a playbook in the org: a name unique among its active playbooks, and a description.',
    inputSchema: { name: z.string().min(1).max(100), description: z.string().max(2000).optional() },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  }, async ({ name, description }) =>
    answer(await store().create(name, description ?? ''), (p) => `The playbook "${p.name}" was created with the id ${p.id}.`));
  mcp.registerTool('get_playbook', {
    title: 'Read a playbook',
    description: 'Reads one playbook of the org by its id.',
    inputSchema: { playbook: z.string().min(1) },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, async ({ playbook }) =>
    answer(await store().get(playbook), (p) => `The playbook "${p.name}" is ${p.status}.`));
  return mcp;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== '/mcp') return Response.json({ name: 'bench-ts-mcp', mcp: '/mcp' });
    // Stateless, as the SDK recommends for a Worker: a server and a transport for each request.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const mcp = server(env);
    await mcp.connect(transport);
    return transport.handleRequest(request);
  },
} satisfies ExportedHandler<Env>;
