// A person's browser, as small as sign-in needs: it follows redirects, keeps each host's cookies,
// reads a page's forms, and submits one. It runs no script, as the sign-in pages need none.

/** A browser session with its own cookies. */
export function browser() {
  const jars = new Map(); // host:port -> Map(name -> value)
  const jar = (url) => {
    const key = new URL(url).host;
    if (!jars.has(key)) jars.set(key, new Map());
    return jars.get(key);
  };
  const keep = (url, res) => {
    for (const line of res.headers.getSetCookie?.() ?? []) {
      const [pair, ...attrs] = line.split(';');
      const [name, ...rest] = pair.split('=');
      const value = rest.join('=');
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) jar(url).delete(name.trim()); else jar(url).set(name.trim(), value.trim());
    }
  };
  const cookieHeader = (url) => [...jar(url)].map(([k, v]) => `${k}=${v}`).join('; ');

  /**
   * Goes to `url` (GET, or POST with a form body), following redirects until a page answers or
   * the address starts with `stopAt`. Answers {url, status, html, headers} of where it ended.
   */
  async function go(url, { method = 'GET', form, stopAt, origin } = {}) {
    let current = url;
    let init = { method, body: form ? new URLSearchParams(form).toString() : undefined };
    for (let hops = 0; hops < 20; hops += 1) {
      if (stopAt && current.startsWith(stopAt)) return { url: current, status: 0, html: '', headers: new Headers() };
      const headers = { cookie: cookieHeader(current) };
      if (init.body) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        if (origin) headers.origin = origin;
      }
      const res = await fetch(current, { ...init, headers, redirect: 'manual' });
      keep(current, res);
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        current = new URL(res.headers.get('location'), current).toString();
        init = { method: 'GET' };
        continue;
      }
      return { url: current, status: res.status, html: await res.text(), headers: res.headers };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  return { go, cookies: (url) => new Map(jar(url)) };
}

/** The forms of a page: each one's action (absolute), method and fields, buttons aside. */
export function forms(page) {
  const out = [];
  for (const m of page.html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attr = (src, name) => src.match(new RegExp(`\\b${name}="([^"]*)"`, 'i'))?.[1];
    const fields = {};
    for (const input of m[2].matchAll(/<input\b([^>]*)>/gi)) {
      const name = attr(input[1], 'name');
      if (name && attr(input[1], 'type') !== 'submit') fields[name] = decode(attr(input[1], 'value') ?? '');
    }
    for (const select of m[2].matchAll(/<select\b[^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/gi)) {
      fields[select[1]] = decode(select[2].match(/<option\b[^>]*value="([^"]*)"/i)?.[1] ?? '');
    }
    out.push({ action: new URL(decode(attr(m[1], 'action') ?? ''), page.url).toString(), method: (attr(m[1], 'method') ?? 'get').toUpperCase(), fields });
  }
  return out;
}

function decode(s) {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
