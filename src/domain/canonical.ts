/** Canonical JSON (keys sorted at every depth, no whitespace) and request fingerprints. */
import { createHash } from 'node:crypto';

/** Text written as is between values (brackets, commas, keys). */
class Token {
  constructor(readonly text: string) {}
}

/**
 * Iterative (an explicit stack, not recursion): a body nested thousands of levels deep
 * must not overflow the call stack here (the HTTP layer refuses such bodies first, see
 * src/http/json-body.ts; this stays safe for any caller).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Popped from the end: every container pushes its closing token first and its opening token last.
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Token) {
      out.push(item.text);
    } else if (item === undefined) {
      out.push('null');
    } else if (item === null || typeof item !== 'object') {
      out.push(typeof item === 'bigint' ? JSON.stringify(item.toString(10)) : String(JSON.stringify(item)));
    } else if (Array.isArray(item)) {
      work.push(new Token(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i]);
        if (i > 0) work.push(new Token(','));
      }
      work.push(new Token('['));
    } else {
      const entries = Object.entries(item as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push(new Token('}'));
      for (let i = entries.length - 1; i >= 0; i--) {
        work.push(entries[i][1], new Token(`${JSON.stringify(entries[i][0])}:`));
        if (i > 0) work.push(new Token(','));
      }
      work.push(new Token('{'));
    }
  }
  return out.join('');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function fingerprint(operation: string, canonical: unknown): string {
  return sha256Hex(`${operation}\n${canonicalJson(canonical)}`);
}
