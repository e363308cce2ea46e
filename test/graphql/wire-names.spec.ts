/**
 * A GraphQL field read under another name than its property, without a resolver
 * (`simple: true`), reads a name the wire record answers (src/domain/wire-record.ts):
 * otherwise it would read nothing and answer null.
 */
import 'reflect-metadata';
import { getMetadataStorage } from 'type-graphql';
import { buildGraphQLSchema } from '../../src/graphql/schema';
import { WIRE_NAMES, reviveWireRecords, wireRecord } from '../../src/domain/wire-record';

test('every renamed field without a resolver reads a name the wire record answers', () => {
  buildGraphQLSchema();
  const storage = getMetadataStorage();
  const renamed = storage.fields.filter((f) => f.schemaName !== f.name && f.simple);
  const unresolved = renamed.filter((f) => !storage.fieldResolvers.some((r) => r.getObjectType?.() === f.target && r.methodName === f.name));
  expect(unresolved.length).toBeGreaterThan(0);
  const wrong = unresolved
    .filter((f) => (WIRE_NAMES as Record<string, string>)[f.schemaName] !== f.name)
    .map((f) => `${f.target.name}.${f.schemaName} reads ${f.name}`);
  expect(wrong).toEqual([]);
});

test('a wire record answers its GraphQL names and serialises only its own properties', () => {
  const record = wireRecord({ id: 'po_1', merchant_reference: 'ref-1', recipient: wireRecord({ bank_code: 'KBANK' }) });
  expect((record as unknown as { merchantReference: string }).merchantReference).toBe('ref-1');
  expect(JSON.stringify(record)).toBe('{"id":"po_1","merchant_reference":"ref-1","recipient":{"bank_code":"KBANK"}}');
  const revived = reviveWireRecords(JSON.parse(JSON.stringify(record)) as { recipient: { bankCode?: string }; merchantReference?: string });
  expect([revived.merchantReference, revived.recipient.bankCode]).toEqual(['ref-1', 'KBANK']);
});
