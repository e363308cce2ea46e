/** The `type` filter of GET /v1/events (src/modules/events/event.schemas.ts) and the subscription's `types` check. */
import { listQuerySchema } from '../../src/domain/listing';
import { check } from '../../src/domain/schema';
import { EVENT_LIST } from '../../src/modules/events/event.schemas';
import { parseTypeFilter } from '../../src/modules/events/event.service';
import { expectValidation } from '../helpers/unit';

const query = (raw: Record<string, unknown>) => check(listQuerySchema(EVENT_LIST), raw, 'query');
const normalise = (v: string) => EVENT_LIST.extra!.type.parse!(v);

describe('type', () => {
  test('types and wildcards, comma-separated, spaces trimmed, duplicates dropped', () => {
    expect(query({ type: 'payout_intent.cancelled' })).toEqual({ type: 'payout_intent.cancelled' });
    expect(normalise(' payout_intent.cancelled , topup_intent.*,payout_intent.cancelled')).toBe('payout_intent.cancelled,topup_intent.*');
    query({ type: Array.from({ length: 50 }, () => 'refund.created').join(',') });
  });

  test.each(['payout', 'PAYOUT.created', 'payout_intent.', '*', 'a.b,', ',a.b', 'a.b,,c.d', Array.from({ length: 51 }, () => 'refund.created').join(',')])(
    '%j is refused on `type`',
    (value) => {
      expectValidation(() => query({ type: value }), 'type');
    },
  );

  test('the schema and the subscription check agree', () => {
    for (const value of ['payout_intent.cancelled', ' a.b ,c.*', 'payout', 'a.b,', Array.from({ length: 51 }, () => 'a.b').join(',')]) {
      let bySchema = true;
      try {
        query({ type: value });
      } catch {
        bySchema = false;
      }
      let byCheck = true;
      try {
        parseTypeFilter(value);
      } catch {
        byCheck = false;
      }
      expect({ value, bySchema }).toEqual({ value, bySchema: byCheck });
    }
  });
});
