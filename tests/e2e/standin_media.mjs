// What the OpenAI-compatible stand-in (standin_models.mjs) answers on the Images and Audio APIs a
// generation function reaches through a gateway: real PNG bytes for images/generations and
// images/edits (data[].b64_json), and real MP3 bytes for audio/speech (the body itself), so the
// runtime's checks of first bytes and a reader such as `file` take them as what they claim.
//
// A test scripts a model as for chat (POST /__script { model, … }) with, for generation:
//   { status?, error?, message? }   answer an error of the API's shape
//   { garbage: true }               answer 200 with a body that is no answer of the API
//   { huge_bytes: n }               answer 200 with n bytes, streamed without a length
//   { url_only: true }              answer an image as a url rather than as b64_json
//   { lie: true }                   answer as b64_json bytes that are no PNG, JPEG or WEBP (a GIF)
//   { delay_ms }                    wait first
// and reads what it was sent through GET /__requests?model=…: the JSON body, or for images/edits
// the form's fields and each file's name, filename, content type, size and sha256.
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A valid RGB PNG of `width` by `height`, its colour drawn from `seed`, so two prompts differ. */
export function png(width = 16, height = 16, seed = 'standin') {
  const [r, g, b] = createHash('sha256').update(seed).digest();
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x += 1) row.set([r, (g + x * 8) & 0xff, b], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Valid MPEG-1 Layer III audio: an ID3v2 tag, then `frames` frames of 128 kbps at 44.1 kHz, joint
 * stereo, each 417 bytes with its header (0xFFFB9064) and silent side information.
 */
export function mp3(frames = 20) {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x64]);
  return Buffer.concat([id3, ...Array.from({ length: frames }, () => frame)]);
}

/** The fields and files of a multipart/form-data body. */
export function parseMultipart(contentType, body) {
  const boundary = /boundary=([^;]+)/.exec(contentType ?? '')?.[1];
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const fields = {};
  const files = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) return null;
    const part = body.subarray(start + 2, next - 2); // past CRLF, before the CRLF ahead of the next
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]+)"/.exec(head)?.[1];
    const filename = /filename="([^"]+)"/.exec(head)?.[1];
    if (filename) {
      files.push({
        name, filename,
        content_type: /Content-Type: (\S+)/i.exec(head)?.[1] ?? null,
        size: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
      });
    } else if (name) {
      fields[name] = content.toString('utf8');
    }
    at = next;
  }
  return { fields, files };
}

function openaiError(res, status, type, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}

export const MEDIA_PATHS = ['/v1/images/generations', '/v1/images/edits', '/v1/audio/speech'];

/**
 * Answers one request to the Images or Audio API, recording it in `received`; `scripts` holds what
 * each model was scripted to do.
 */
export async function answerMedia(req, res, path, raw, scripts, received) {
  let body;
  if (path === '/v1/images/edits') {
    const form = parseMultipart(req.headers['content-type'], raw);
    if (!form) return openaiError(res, 400, 'invalid_request_error', 'the body is not multipart/form-data');
    body = { ...form.fields, files: form.files };
    if (!form.files.length) return openaiError(res, 400, 'invalid_request_error', "Missing required parameter: 'image'.");
  } else {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return openaiError(res, 400, 'invalid_request_error', 'body is not JSON');
    }
  }
  received.push({ at: new Date().toISOString(), path, headers: { ...req.headers }, body, turn: null });
  const script = scripts.get(body.model) ?? {};
  if (script.delay_ms) await new Promise((resolve) => { setTimeout(resolve, script.delay_ms); });
  if (res.destroyed) return undefined;
  if (script.status) return openaiError(res, script.status, script.error ?? 'server_error', script.message ?? 'scripted failure');
  if (script.garbage) {
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end('<html><body>502 upstream gave up</body></html>');
  }
  if (script.huge_bytes) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const piece = Buffer.alloc(1024 * 1024, 0x41);
    let left = script.huge_bytes;
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, piece.length);
      if (!res.write(piece.subarray(0, n))) await new Promise((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
      left -= n;
    }
    return res.end();
  }
  if (path === '/v1/audio/speech') {
    if (typeof body.input !== 'string' || !body.voice) return openaiError(res, 400, 'invalid_request_error', 'input and voice are required');
    if ((body.response_format ?? 'mp3') !== 'mp3') return openaiError(res, 400, 'invalid_request_error', 'the stand-in speaks only mp3');
    const audio = mp3();
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
    return res.end(audio);
  }
  if (typeof body.prompt !== 'string' || !body.prompt) return openaiError(res, 400, 'invalid_request_error', "Missing required parameter: 'prompt'.");
  const image = script.lie ? Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1') : png(16, 16, body.prompt);
  const data = script.url_only ? [{ url: 'https://example.invalid/image.png' }] : [{ b64_json: image.toString('base64') }];
  res.writeHead(200, { 'content-type': 'application/json' });
  return res.end(JSON.stringify({ created: Math.floor(Date.now() / 1000), data, usage: { input_tokens: 20, output_tokens: 300 } }));
}
