// A real OpenID Connect provider on loopback (the npm package oidc-provider), for sign-in tests:
// one confidential client, the runtime, whose redirect URI is the runtime's callback, and the
// people it knows. Its development login page takes any of their ids as the login.
import Provider from 'oidc-provider';
import { freePort } from './harness.mjs';

/** The people the provider signs in. Each signs in with their `sub` as the login, as the
 * provider's development login page makes the login the account id. */
export const PEOPLE = {
  ada: { sub: 'user_2ada', name: 'Ada Lovelace', email: 'ada@acme.test' },
  grace: { sub: 'user_3grace', name: 'Grace Hopper', email: 'grace@acme.test' },
  nobody: { sub: 'user_4nobody', name: 'No Body', email: 'nobody@elsewhere.test' },
  // Two whose provider does not vouch for their address: it leaves email_verified out, or sends
  // the string "false" as some providers do. Their addresses are an org's owner in OWNERS.
  mallory: { sub: 'user_5mallory', name: 'Mallory', email: 'boss@beta.test', verified: undefined },
  trudy: { sub: 'user_6trudy', name: 'Trudy', email: 'boss@gamma.test', verified: 'false' },
};

/**
 * Starts the provider for a runtime that will listen at `runtimeUrl`.
 * @returns {Promise<{issuer: string, clientId: string, clientSecret: string, vars: Record<string,string>, close: () => Promise<void>}>}
 */
export async function startOidcProvider(runtimeUrl) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = 'playbook-runtime';
  const clientSecret = `secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const bySub = new Map(Object.values(PEOPLE).map((p) => [p.sub, p]));
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [`${runtimeUrl}/oauth/callback`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    }],
    claims: { openid: ['sub'], profile: ['name'], email: ['email', 'email_verified'] },
    // The runtime sends its own PKCE; the provider insists on it, as a real one may.
    pkce: { required: () => true },
    async findAccount(_ctx, id) {
      const person = bySub.get(id);
      if (!person) return undefined;
      return {
        accountId: id,
        async claims() {
          const claims = { sub: person.sub, name: person.name, email: person.email, email_verified: true };
          if ('verified' in person) {
            if (person.verified === undefined) delete claims.email_verified; else claims.email_verified = person.verified;
          }
          return claims;
        },
      };
    },
  });
  provider.proxy = false;
  const server = provider.listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    vars: { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Signs a Chromium page in at the team's provider as `who`, wherever its pages ask. */
export async function signInAtTeam(page, who) {
  for (let step = 0; step < 4 && page.url().includes('/interaction/'); step += 1) {
    if (await page.$('input[name=login]')) {
      await page.type('input[name=login]', PEOPLE[who].sub);
      await page.type('input[name=password]', 'any');
    }
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  }
}
