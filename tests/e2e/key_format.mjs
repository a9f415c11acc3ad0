// The shape of an API key, written again from its description (src/core/access/key.rs): `pbk_`, 43
// base62 characters of randomness, then a 6-character base62 CRC-32 of the rest. The tests use it to
// make keys the runtime never issued: well formed (so they reach the key store and are not found) or
// with a wrong checksum (so they are refused before any lookup). Not a test file itself.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Big-endian bytes as `width` base62 digits. */
function base62(bytes, width) {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  for (let i = 0; i < width; i += 1) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

function crc32(text) {
  let crc = ~0;
  for (const byte of Buffer.from(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (~crc) >>> 0;
}

const checksum = (text) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(crc32(text));
  return base62(b, 6);
};

/** A key with the shape and checksum of a real one, which the runtime never issued. */
export function wellFormedKey() {
  const rest = `pbk_${base62(randomBytes(32), 43)}`;
  return rest + checksum(rest);
}

/** The same shape with its checksum off by one character. */
export function badChecksumKey() {
  const key = wellFormedKey();
  const last = key.at(-1);
  return key.slice(0, -1) + (last === 'a' ? 'b' : 'a');
}

/** Whether a text has the checksum of a key: lets a test check a key the runtime made. */
export function hasKeyChecksum(key) {
  return /^pbk_[0-9A-Za-z]{49}$/.test(key) && checksum(key.slice(0, -6)) === key.slice(-6);
}
