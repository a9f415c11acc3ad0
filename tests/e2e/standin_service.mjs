// A service a person connects through their agent, stood up on loopback from real parts, so that the
// runtime's connection code runs its real paths against it. Two origins, as two services would be:
//
//   oauth  an authorization server (the npm package oidc-provider: open dynamic client registration,
//          resource indicators, PKCE required, refresh tokens) and, beside it, the issue tracker's
//          MCP server (official SDK, streamable HTTP, stateless) at /mcp, which takes only access
//          tokens issued for it (JWTs checked against the server's JWKS) and says where to get one
//          in its 401 and its protected resource metadata (RFC 9728)
//   keyed  a task list with a static key and no authorization server (standin_tasks.mjs): an MCP
//          server at /mcp taking `Authorization: Bearer <key>`, and an HTTP API at /api described by
//          /api/openapi.json taking `X-Api-Key: <key>`
//
//   const service = await startStandinService();
//   service.mcpUrl, service.issuer, service.keyedMcpUrl, service.openapiUrl, service.keys, service.people
//   service.revokeAll(); service.failTokenEndpoint('stall'); service.counts(); await service.close();
//
// A test drives the service's sign-in pages in Chromium with signInAtService(page, 'ada')
// (standin_parts.mjs, which holds the pages).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import Provider, { errors } from 'oidc-provider';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';

import { readBody } from './http_body.mjs';
import { interaction, mapAdapter, mcp, parse, SERVICE_PEOPLE, sendJson, text } from './standin_parts.mjs';
import { taskList } from './standin_tasks.mjs';

export { SERVICE_PEOPLE, signInAtService } from './standin_parts.mjs';

/** The scopes of the issue tracker: reading, and writing, which create_issue needs. */
export const SCOPES = { read: 'issues:read', write: 'issues:write' };

const ISSUES = [
  { number: 1, title: 'Export to CSV drops the last row', state: 'open', by: 'grace' },
  { number: 2, title: 'Dark mode makes the chart legend unreadable', state: 'open', by: 'ada' },
  { number: 3, title: 'Typo on the billing page', state: 'closed', by: 'grace' },
];

const ISSUE_TOOLS = [
  {
    name: 'list_issues',
    title: 'List issues',
    description: 'Lists the issues of the tracker, open ones unless told otherwise.',
    inputSchema: {
      type: 'object',
      properties: { state: { type: 'string', enum: ['open', 'closed', 'all'], description: 'Which issues: open (default), closed or all.' } },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
  {
    name: 'create_issue',
    title: 'Create an issue',
    description: 'Opens a new issue in the tracker, under the name of the person who connected it.',
    inputSchema: {
      type: 'object',
      properties: { title: { type: 'string', minLength: 1, maxLength: 200, description: 'What the issue is about.' } },
      required: ['title'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
];
// What each tool needs of the token: a call without it is refused with 403 insufficient_scope.
const NEEDS = { list_issues: SCOPES.read, create_issue: SCOPES.write };

const secret = (prefix) => `${prefix}-${randomBytes(12).toString('hex')}`;

/**
 * Starts the service on two free loopback ports.
 * @param {{accessTokenTtl?: number}} [options] accessTokenTtl: seconds an access token lasts (3600)
 */
export async function startStandinService({ accessTokenTtl = 3600 } = {}) {
  const oauthServer = http.createServer();
  const keyedServer = http.createServer();
  await Promise.all([oauthServer, keyedServer].map((s) => new Promise((r) => { s.listen(0, '127.0.0.1', r); })));
  const issuer = `http://127.0.0.1:${oauthServer.address().port}`;
  const keyedBase = `http://127.0.0.1:${keyedServer.address().port}`;
  const mcpUrl = `${issuer}/mcp`;
  const metadataUrl = `${issuer}/.well-known/oauth-protected-resource/mcp`;
  const keys = { mcp: secret('standin-mcp-key'), api: secret('standin-api-key') };

  // What the controls change and the tests read.
  const state = {
    generation: 0, // an access token carries the generation it was issued in; older ones are refused
    tokenFailure: null, // null, 'error', 'stall' or 'garbage'
    stalled: new Set(),
    log: [],
    issued: { access: [], refresh: [] },
    issues: ISSUES.map((i) => ({ ...i })),
  };
  const store = new Map();

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'standin-1', alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    adapter: mapAdapter(store),
    jwks: { keys: [signingKey] },
    // Its own cookie names: a runtime's sign-in provider on 127.0.0.1 shares this host's cookie jar
    // (cookies ignore the port) and would otherwise overwrite this one's session, and back.
    cookies: { names: { session: 'standin_session', interaction: 'standin_interaction', resume: 'standin_resume' }, keys: [secret('cookie')] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true }, // open: no initial access token, as MCP clients expect
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (indicator !== mcpUrl) throw new errors.InvalidTarget(`this server issues tokens for ${mcpUrl} alone`);
          return {
            scope: `${SCOPES.read} ${SCOPES.write}`,
            audience: mcpUrl,
            accessTokenTTL: accessTokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    interactions: { url: (_ctx, i) => `/interaction/${i.uid}` },
    pkce: { required: () => true },
    // A refresh token to every client registered for the refresh_token grant, offline_access asked
    // or not (the provider otherwise wants offline_access with prompt=consent).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens outlive the person's browser session at the service, as a connection's must.
    expiresWithSession: async () => false,
    extraTokenClaims: async () => ({ gen: state.generation }),
    ttl: { AccessToken: accessTokenTtl, RefreshToken: 14 * 24 * 3600, Session: 3600, Interaction: 600, Grant: 14 * 24 * 3600 },
    claims: { openid: ['sub'], profile: ['name'] },
    async findAccount(_ctx, id) {
      const person = SERVICE_PEOPLE[id];
      return person && { accountId: id, claims: async () => ({ sub: id, name: person.name }) };
    },
  });
  provider.proxy = false;
  // What the token endpoint gave and for which grant, for the log and the tests' greps.
  provider.on('grant.success', (ctx) => {
    ctx.res.standinGrant = ctx.oidc.params.grant_type;
    if (ctx.body?.access_token) state.issued.access.push(ctx.body.access_token);
    if (ctx.body?.refresh_token) state.issued.refresh.push(ctx.body.refresh_token);
  });
  provider.on('grant.error', (ctx, error) => { ctx.res.standinGrant = ctx.oidc?.params?.grant_type; ctx.res.standinError = error.error; });
  const callProvider = provider.callback();
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));

  /** The issue tracker's answer to a bearer token: {auth} when it may call, else the refusal. */
  async function authorize(req) {
    const challenge = (error, description) => `Bearer resource_metadata="${metadataUrl}"${error ? `, error="${error}", error_description="${description}"` : ''}`;
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return { status: 401, header: challenge(), why: 'no token' };
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer, audience: mcpUrl, typ: 'at+jwt' });
      if (payload.gen !== state.generation) return { status: 401, header: challenge('invalid_token', 'The access token was revoked.'), why: 'revoked' };
      const scopes = String(payload.scope ?? '').split(' ').filter(Boolean);
      return { auth: { token, clientId: payload.client_id, scopes, expiresAt: payload.exp, extra: { sub: payload.sub } } };
    } catch (error) {
      return { status: 401, header: challenge('invalid_token', 'The access token is not valid for this server.'), why: error.code ?? error.message };
    }
  }

  function callIssueTool(name, args, auth) {
    const person = SERVICE_PEOPLE[auth.extra.sub];
    if (name === 'list_issues') {
      const which = args.state ?? 'open';
      const shown = state.issues.filter((i) => which === 'all' || i.state === which);
      const lines = shown.map((i) => `#${i.number} ${i.title} (${i.state})`);
      return text([`Issues (${which}) as ${person.name} sees them:`, ...lines].join('\n'));
    }
    const issue = { number: state.issues.length + 1, title: String(args.title), state: 'open', by: person.login };
    state.issues.push(issue);
    return text(`${person.name} opened issue #${issue.number}: ${issue.title}`);
  }

  const record = (req, res, route) => {
    const entry = { route, method: req.method, path: req.url.split('?')[0], status: null };
    state.log.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
      if (res.standinGrant) entry.grant_type = res.standinGrant;
      if (res.standinError) entry.error = res.standinError;
    });
    return entry;
  };

  oauthServer.on('request', async (req, res) => {
    const url = new URL(req.url, issuer);
    try {
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        record(req, res, 'resource_metadata');
        return sendJson(res, 200, {
          resource: mcpUrl,
          authorization_servers: [issuer],
          scopes_supported: [SCOPES.read, SCOPES.write],
          bearer_methods_supported: ['header'],
          resource_name: 'Stand-in tracker',
        });
      }
      if (url.pathname === '/mcp') {
        const entry = record(req, res, 'mcp');
        const checked = await authorize(req);
        if (!checked.auth) {
          entry.why = checked.why;
          return sendJson(res, checked.status, { error: 'invalid_token', error_description: 'A valid bearer token for this server is required.' },
            { 'www-authenticate': checked.header });
        }
        const body = parse(await readBody(req));
        if (body === null) return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        const needs = body?.method === 'tools/call' ? NEEDS[body.params?.name] : undefined;
        if (needs && !checked.auth.scopes.includes(needs)) {
          return sendJson(res, 403, { error: 'insufficient_scope', error_description: `${body.params.name} needs the scope ${needs}.` },
            { 'www-authenticate': `Bearer error="insufficient_scope", scope="${needs}", resource_metadata="${metadataUrl}"` });
        }
        return await mcp(req, res, body, ISSUE_TOOLS, callIssueTool, checked.auth);
      }
      if (url.pathname.startsWith('/interaction/')) {
        record(req, res, 'interaction');
        return await interaction(provider, req, res, url, SERVICE_PEOPLE);
      }
      const route = { '/reg': 'register', '/auth': 'authorize', '/token': 'token', '/token/revocation': 'revocation', '/jwks': 'jwks' }[url.pathname] ?? 'provider';
      record(req, res, route);
      if (route === 'token' && state.tokenFailure) return failToken(req, res);
      return callProvider(req, res);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: 'server_error', error_description: String(error?.message ?? error) });
      else res.destroy();
    }
    return undefined;
  });

  function failToken(req, res) {
    if (state.tokenFailure === 'stall') {
      // Read the request, then never answer: the caller's own deadline must end it.
      req.resume();
      state.stalled.add(res);
      res.on('close', () => state.stalled.delete(res));
      return undefined;
    }
    if (state.tokenFailure === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('<html><body>Bad Gateway</body></html>\u0000{"access_token":');
    }
    res.writeHead(500, { 'content-type': 'text/plain' });
    return res.end('Internal Server Error');
  }

  const tasks = taskList({ base: keyedBase, keys, record });
  keyedServer.on('request', tasks.handle);

  const count = (route) => state.log.filter((e) => e.route === route).length;
  return {
    issuer,
    mcpUrl,
    resourceMetadataUrl: metadataUrl,
    keyedMcpUrl: `${keyedBase}/mcp`,
    openapiUrl: `${keyedBase}/api/openapi.json`,
    apiBaseUrl: `${keyedBase}/api`,
    keys,
    people: SERVICE_PEOPLE,
    scopes: SCOPES,
    /** Every access token is refused from now on, every refresh token and grant forgotten: the next
     * call is a 401 and the next refresh an invalid_grant, as when a person revokes the app. */
    revokeAll() {
      state.generation += 1;
      for (const [key, entry] of store) if (entry.model !== 'Client' && entry.model !== 'Session') store.delete(key);
    },
    /** Refuses the access tokens issued so far, as if they had expired; refresh tokens still work. */
    expireAccessTokens() { state.generation += 1; },
    /** How the token endpoint fails from now on: 'error' (500), 'stall' (never answers), 'garbage'
     * (a 200 that is not JSON), or null to answer again. */
    failTokenEndpoint(mode) {
      if (![null, 'error', 'stall', 'garbage'].includes(mode)) throw new Error(`unknown failure mode ${mode}`);
      state.tokenFailure = mode;
    },
    /** Requests so far by route: register, authorize, token, mcp, keyed_mcp, api, resource_metadata, … */
    counts: () => Object.fromEntries([...new Set(state.log.map((e) => e.route))].map((r) => [r, count(r)])),
    /** Each request: {route, method, path, status, grant_type?, error?, why?}, in order. */
    requests: () => state.log.map((e) => ({ ...e })),
    /** Every access and refresh token the service gave, for the tests to grep the runtime's output. */
    issuedTokens: () => ({ access: [...state.issued.access], refresh: [...state.issued.refresh] }),
    /** The clients registered so far (by DCR): {client_id, client_name, redirect_uris, grant_types, …}. */
    clients: () => [...store.values()].filter((e) => e.model === 'Client').map((e) => structuredClone(e.payload)),
    issues: () => state.issues.map((i) => ({ ...i })),
    tasks: tasks.tasks,
    async close() {
      for (const res of state.stalled) res.destroy();
      await Promise.all([oauthServer, keyedServer].map((s) => new Promise((r) => { s.closeAllConnections(); s.close(() => r()); })));
    },
  };
}
