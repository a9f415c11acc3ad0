// One measurement: autocannon on loopback, bounded in time (or in count, for seeding), with each
// answer's latency kept to the microsecond (autocannon's own histogram keeps whole milliseconds,
// too coarse for the floors) and each answer checked, so that a refusal is counted, not timed.
import autocannon from 'autocannon';

/**
 * @param {object} spec
 * @param {string} spec.url        the whole URL, loopback only
 * @param {string} [spec.method]   default POST when there is a body, else GET
 * @param {object} [spec.headers]
 * @param {string} [spec.body]     the same body on every request
 * @param {() => string} [spec.makeBody]  a fresh body for every request (names that must differ)
 * @param {(body: string) => boolean} [spec.failed]  whether a 2xx answer is a failure all the same
 * @param {number} spec.connections
 * @param {number} [spec.seconds]  how long to load (the bound of a measurement)
 * @param {number} [spec.amount]   how many requests to send (the bound of a seeding step)
 * @param {number} [spec.timeoutSeconds]  the most one request may take before it counts as an error
 * @returns {Promise<{ok: number, failed: number, errors: number, seconds: number, rps: number, p50: number, p99: number}>}
 */
export async function load(spec) {
  const url = new URL(spec.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new Error(`the bench loads loopback only, not ${url.hostname}`);
  }
  const latencies = [];
  let failed = 0;
  let non2xx = 0;
  const check = spec.failed;
  const request = {};
  if (spec.makeBody) {
    request.setupRequest = (req) => ({ ...req, body: spec.makeBody() });
  }
  if (check) {
    request.onResponse = (status, body) => {
      if (status >= 200 && status < 300 && check(body)) failed += 1;
    };
  }
  const options = {
    url: spec.url,
    method: spec.method ?? (spec.body || spec.makeBody ? 'POST' : 'GET'),
    headers: spec.headers ?? {},
    body: spec.body,
    connections: spec.connections,
    timeout: spec.timeoutSeconds ?? 30,
    requests: Object.keys(request).length ? [request] : undefined,
  };
  if (spec.amount) options.amount = spec.amount;
  else options.duration = spec.seconds;
  const started = process.hrtime.bigint();
  const instance = autocannon(options);
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else non2xx += 1;
  });
  const result = await instance;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const ok = latencies.length - failed;
  return {
    ok,
    failed: failed + non2xx,
    errors: result.errors + result.timeouts,
    seconds,
    rps: ok / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

/** The nearest-rank percentile of sorted values; NaN when there are none. */
export function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
