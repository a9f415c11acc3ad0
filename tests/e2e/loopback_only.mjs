// Preloaded (node --import) into the real tool servers the suite starts from npm packages, whose
// servers call listen(port) and so would bind every interface: a listen that names no host binds
// 127.0.0.1 alone, so that nothing the tests start is reachable from another machine.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first, second] = args;
  const portOnly = (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first)))
    && (second === undefined || typeof second === 'function');
  if (portOnly) return listen.call(this, Number(first), '127.0.0.1', ...args.slice(1));
  if (first && typeof first === 'object' && !Array.isArray(first) && 'port' in first && !first.host) {
    return listen.call(this, { ...first, host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
