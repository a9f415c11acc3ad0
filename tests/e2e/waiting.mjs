// Waiting for what a test can see rather than for a length of time: ask again, a short while apart,
// until the answer is the awaited one, and fail with the last answer once the deadline is past. A
// wait of fixed length passes when the thing is merely slow and costs its length when it is quick.
//
//   const refused = await until('the key is refused', () => http('GET', path, key), (r) => r.status === 401,
//     { deadline: Date.parse(expiresAt) + 1_000 });
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `ask` until `done(answer)` holds, and answers that answer. Past `deadline` (milliseconds
 * since the epoch) it fails, naming `what` and showing the last answer.
 * @template T
 * @param {string} what
 * @param {() => Promise<T>} ask
 * @param {(answer: T) => boolean} done
 * @param {{deadline: number, everyMs?: number}} options
 * @returns {Promise<T>}
 */
export async function until(what, ask, done, { deadline, everyMs = 100 }) {
  for (;;) {
    const answer = await ask();
    if (done(answer)) return answer;
    if (Date.now() >= deadline) {
      const shown = typeof answer === 'string' ? answer : JSON.stringify(answer);
      assert.fail(`${what}: not by the deadline; the last answer was ${String(shown).slice(0, 300)}`);
    }
    await sleep(everyMs);
  }
}
