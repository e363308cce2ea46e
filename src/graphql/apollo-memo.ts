/**
 * Two pure computations Apollo Server repeats on every HTTP request, memoised (issue 11):
 *
 *  - **Media-type negotiation.** `processGraphQLRequest` asks `negotiator` which
 *    incremental-delivery format the Accept header prefers before every execution (with or
 *    without @defer, with or without an Accept header), and runHttpQuery asks again for the
 *    response's content type when an Accept header is sent. Each call parses the Accept
 *    header and every offered type again. `Negotiator#mediaType(available)` is a pure
 *    function of the Accept header and the offered list.
 *  - **The CSRF check's Content-Type parse.** `preventCsrf` parses the Content-Type header
 *    with `whatwg-mimetype` on every request (`application/json` every time) to read its
 *    `essence`; runHttpQuery does the same for a GET with a Content-Type. `MIMEType.parse`
 *    is a pure function of the header value.
 *
 * Both are memoised on the module instances `@apollo/server` itself loads: the same answer,
 * computed once per distinct input. A memoised MIMEType is shared between requests, so it is
 * frozen (Apollo only reads `essence`; a writer would throw instead of changing another
 * request's answer). Each memo is bounded (cleared when full): varied headers cannot grow it.
 * Installed once, by `apolloOptions()`.
 */
import { createRequire } from 'node:module';
import { BoundedMemo } from '../domain/bounded-memo';

export const MEMO_SIZE = 256;

const MEMOISED = Symbol.for('payments-gateway.apollo-memo');
type Marked<F> = F & { [MEMOISED]?: true };

interface NegotiatorLike {
  request: { headers: { accept?: unknown } };
}
type MediaType = (this: NegotiatorLike, available?: string[]) => string | undefined;
type Parse = (input: string) => object | null;

/** Installs both memos (once) and returns the patched objects (tests). */
export function memoiseApolloRequestWork(): { negotiator: { mediaType: MediaType }; mimeType: { parse: Parse } } {
  const apolloRequire = createRequire(require.resolve('@apollo/server'));

  const negotiator = (apolloRequire('negotiator') as { prototype: { mediaType: Marked<MediaType> } }).prototype;
  if (!negotiator.mediaType[MEMOISED]) {
    const original = negotiator.mediaType;
    const answers = new BoundedMemo<string | undefined>(MEMO_SIZE);
    const mediaType: Marked<MediaType> = function mediaType(this: NegotiatorLike, available?: string[]) {
      const accept = this.request.headers.accept;
      if (!Array.isArray(available) || (accept !== undefined && typeof accept !== 'string')) return original.call(this, available);
      // No header (undefined: "*/*" for negotiator) and an empty one (nothing acceptable) differ.
      // Neither a header value nor a media type contains a NUL or a newline.
      const key = `${accept === undefined ? '\0' : `=${accept}`}\n${available.join('\n')}`;
      return answers.get(key, () => original.call(this, available));
    };
    mediaType[MEMOISED] = true;
    negotiator.mediaType = mediaType;
  }

  const mimeType = apolloRequire('whatwg-mimetype') as { parse: Marked<Parse> };
  if (!mimeType.parse[MEMOISED]) {
    const original = mimeType.parse.bind(mimeType);
    const parsed = new BoundedMemo<object | null>(MEMO_SIZE);
    const parse: Marked<Parse> = (input: string) => {
      if (typeof input !== 'string') return original(input);
      return parsed.get(input, () => {
        const value = original(input);
        return value === null ? null : Object.freeze(value);
      });
    };
    parse[MEMOISED] = true;
    mimeType.parse = parse;
  }
  return { negotiator, mimeType };
}
