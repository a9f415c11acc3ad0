// The bench's floor for a request that needs no state: workerd's own cost to receive a request and
// send a small JSON answer, with no Durable Object and no WebAssembly. `POST /answer?bytes=n` reads
// the request's body and answers n bytes as an event stream: what moving a large answer costs
// workerd alone, beside the runtime's `tools/list` of that size.
const ANSWER_MAX = 1 << 20;
let answer = '';

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method === 'POST' && url.pathname === '/answer') {
      await request.arrayBuffer();
      const bytes = Math.min(ANSWER_MAX, Math.max(0, Number(url.searchParams.get('bytes')) || 0));
      if (answer.length !== bytes) answer = 'x'.repeat(bytes);
      return new Response(answer, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
    }
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  },
};
