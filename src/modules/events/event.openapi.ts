/** OpenAPI fragment of the events module. */
import { commonErrors, createdParams, idParam, json, limitCursor, page, ref } from '../../http/openapi.parts';

const paths = {
  '/events': {
    get: {
      summary: 'List events, newest first.',
      parameters: [
        ...limitCursor, ...createdParams,
        { name: 'type', in: 'query', schema: { type: 'string' }, description: 'One or a comma-separated list of event types (payout_intent.cancelled) or wildcards (payout_intent.*).' },
      ],
      responses: { 200: { description: 'A page.', content: json(page('Event')) }, ...commonErrors },
    },
  },
  '/events/{id}': {
    get: { summary: 'Retrieve an event.', parameters: [idParam], responses: { 200: { description: 'The event.', content: json(ref('Event')) }, ...commonErrors } },
  },
};

const schemas = {
  Event: {
    type: 'object',
    properties: {
      object: { const: 'event' }, id: { type: 'string' }, type: { type: 'string' }, environment: { enum: ['test', 'live'] },
      created_at: { type: 'string', format: 'date-time' },
      data: { type: 'object', properties: { object: { type: 'object', description: 'The record as its REST route returns it.' } } },
    },
  },
};

export const EVENT_OPENAPI = { paths, schemas };
