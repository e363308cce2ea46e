/**
 * The memos of src/graphql/apollo-memo.ts give exactly the answers of the functions they
 * wrap: media-type negotiation (negotiator, as Apollo Server loads it) and the Content-Type
 * parse of the CSRF check (whatwg-mimetype), for the headers clients send and odd ones.
 */
import { createRequire } from 'node:module';
import { MEMO_SIZE, memoiseApolloRequestWork } from '../../src/graphql/apollo-memo';

const apolloRequire = createRequire(require.resolve('@apollo/server'));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const Negotiator = apolloRequire('negotiator') as any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const MIMEType = apolloRequire('whatwg-mimetype') as any;

/** What Apollo Server 5 offers (requestPipeline, runHttpQuery, ApolloServer). */
const OFFERS = [
  ['multipart/mixed; incrementalSpec=v0.2', 'multipart/mixed; deferSpec=20220824'],
  ['application/json; charset=utf-8', 'application/graphql-response+json; charset=utf-8', 'application/json; callbackSpec=1.0; charset=utf-8'],
  ['multipart/mixed', 'multipart/mixed; incrementalSpec=v0.2', 'multipart/mixed; deferSpec=20220824'],
];
const ACCEPTS = [
  undefined, '', '*/*', 'application/json', 'application/graphql-response+json', 'text/html',
  'application/graphql-response+json;q=0.9, application/json;q=0.8', 'multipart/mixed; deferSpec=20220824, application/json',
  'multipart/mixed;incrementalSpec=v0.2;q=1.0,application/json;q=0.5', 'text/html, */*;q=0.1', 'application/xml', ';;;', 'a/b;q=x, */*;q=0',
];

test('negotiation answers as negotiator, first and second time', () => {
  memoiseApolloRequestWork();
  for (let round = 0; round < 2; round++) {
    for (const accept of ACCEPTS) {
      for (const offered of OFFERS) {
        const expected = new Negotiator({ headers: { accept } }).mediaTypes(offered)[0];
        expect(new Negotiator({ headers: { accept } }).mediaType([...offered])).toBe(expected);
      }
    }
  }
  expect(new Negotiator({ headers: {} }).mediaType()).toBe(new Negotiator({ headers: {} }).mediaTypes()[0]);
});

test('the memos stay bounded and right past their size', () => {
  const { mimeType } = memoiseApolloRequestWork();
  for (let i = 0; i < MEMO_SIZE * 2 + 5; i++) {
    const accept = `application/x-${i}, application/json;q=0.${i % 10}`;
    expect(new Negotiator({ headers: { accept } }).mediaType(OFFERS[1])).toBe(new Negotiator({ headers: { accept } }).mediaTypes(OFFERS[1])[0]);
    expect((mimeType.parse(`application/x-${i}; charset=utf-8`) as { essence: string }).essence).toBe(`application/x-${i}`);
  }
});

test('Content-Type parse answers as whatwg-mimetype, shared and frozen', () => {
  const { mimeType } = memoiseApolloRequestWork();
  for (const value of ['application/json', 'application/json; charset=utf-8', ' Text/Plain ;charset=x', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'nonsense', '', 'a/b;c']) {
    let expected: string | null;
    try {
      expected = new MIMEType(value).essence;
    } catch {
      expected = null;
    }
    const first = mimeType.parse(value) as { essence: string } | null;
    expect(first?.essence ?? null).toBe(expected);
    const again = MIMEType.parse(value);
    expect(again).toBe(first);
    if (again) {
      expect(Object.isFrozen(again)).toBe(true);
      expect(() => { again.type = 'text'; }).toThrow();
    }
  }
});

test('installing twice wraps once', () => {
  const a = memoiseApolloRequestWork();
  const mediaType = a.negotiator.mediaType;
  const parse = a.mimeType.parse;
  const b = memoiseApolloRequestWork();
  expect(b.negotiator.mediaType).toBe(mediaType);
  expect(b.mimeType.parse).toBe(parse);
});
