// A person's sign-in through the runtime as an OAuth client does it by hand: register a client,
// send the person to /oauth/authorize with PKCE, sign them in at the stand-in provider and allow
// the consent, then trade the code for tokens. For tests that need a token of some scopes.
import { createHash, randomBytes } from 'node:crypto';
import { browser, forms } from './browse.mjs';
import { PEOPLE } from './oidc_provider.mjs';

export const CALLBACK = 'http://127.0.0.1:1/callback'; // never reached: the browser stops at it

/** Signs `who` in at the provider's own pages, wherever the browser `b` is on them. */
export async function atProvider(b, page, who, stopAt) {
  for (let step = 0; step < 4 && page.url.includes('/interaction/'); step += 1) {
    const [form] = forms(page);
    const fields = form.fields.prompt === 'login' || 'login' in form.fields ? { ...form.fields, login: PEOPLE[who].sub, password: 'any' } : form.fields;
    page = await b.go(form.action, { method: 'POST', form: fields, stopAt });
  }
  return page;
}

/** Registers a public client and answers its id. */
export async function register(base, name) {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
  });
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  return (await res.json()).client_id;
}

/** The authorization request's address and its PKCE verifier. */
export function authorizeUrl(base, clientId, scope, resource = `${base}/mcp`) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const url = `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256', state: 's', resource, scope })}`;
  return { url, verifier };
}

/**
 * `who` signs in for a new client asking `scope`, allows it on the consent page for `org` (the
 * page's first where left out), and the client trades the code: answers {tokens, clientId, consent}.
 */
export async function tokenFor(base, who, scope, { b = browser(), name = `trust ${who} ${scope}`, org } = {}) {
  const clientId = await register(base, name);
  const { url, verifier } = authorizeUrl(base, clientId, scope);
  let page = await b.go(url, { stopAt: CALLBACK });
  page = await atProvider(b, page, who, CALLBACK);
  const consent = forms(page).find((f) => f.action.endsWith('/oauth/consent'));
  if (!consent) throw new Error(`no consent page for ${who}: ${page.status} ${page.html.slice(0, 300)}`);
  const ended = await b.go(consent.action, { method: 'POST', form: { ...consent.fields, ...(org ? { org } : {}), decision: 'allow' }, stopAt: CALLBACK, origin: base });
  const code = new URL(ended.url).searchParams.get('code');
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: `${base}/mcp` }).toString(),
  });
  if (res.status !== 200) throw new Error(`the token endpoint answered ${res.status}: ${await res.text()}`);
  return { tokens: await res.json(), clientId, consent: page };
}

/** A refresh at the token endpoint: answers its status and body. */
export async function refresh(base, clientId, refreshToken) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
  });
  return { status: res.status, body: await res.json() };
}
