// The whole body of a request a test's own server receives, as text: shared by the tool servers,
// the proxy and the stand-ins of the e2e suite, the fault harness and the bench.

/** Reads `req` to its end. */
export function readBody(req) {
  return new Promise((resolveBody, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
