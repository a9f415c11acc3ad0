// The bench's floor for a request that needs no state: workerd's own cost to receive a request and
// send a small JSON answer, with no Durable Object and no WebAssembly.
export default {
  fetch() {
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  },
};
