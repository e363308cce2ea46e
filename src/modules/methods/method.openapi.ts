/** OpenAPI fragment of the methods module: discovery, method settings, and the next actions they produce. */
import { PAYER_FIELDS, PAYMENT_METHODS } from './catalogue';
import { amount, commonErrors, idempotencyHeader, json, page, postErrors, ref } from '../../http/openapi.parts';

const paths = {
  '/payment_method_options': {
    get: {
      summary: 'Eligible payment methods and bank choices (provider-neutral). Empty data when nothing is eligible.',
      parameters: [
        { name: 'amount', in: 'query', schema: amount, description: 'Minor units; needs currency.' },
        { name: 'currency', in: 'query', schema: { type: 'string', pattern: '^[A-Za-z]{3,6}$' } },
        { name: 'country', in: 'query', schema: { type: 'string', pattern: '^[A-Za-z]{2}$' } },
        { name: 'checkout_mode', in: 'query', schema: { enum: ['direct', 'hosted'], default: 'direct' } },
        { name: 'provider', in: 'query', schema: { type: 'string', pattern: '^[a-z0-9_-]{1,64}$' }, description: 'Strict pin to one provider; an unknown provider gives an empty list.' },
      ],
      responses: { 200: { description: 'One page with everything (has_more false, next_cursor null).', content: json(page('PaymentMethodOption')) }, 400: commonErrors[400], 401: commonErrors[401] },
    },
  },
  '/payment_method_settings': {
    get: {
      summary: "Every method of the catalogue and whether the merchant offers it in the key's environment.",
      responses: {
        200: { description: 'Settings.', content: json({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref('PaymentMethodSetting') } } }) },
        401: commonErrors[401],
      },
    },
  },
  '/payment_method_settings/{payment_method}': {
    post: {
      summary: "Enable or disable a method for the merchant in the key's environment.",
      parameters: [{ name: 'payment_method', in: 'path', required: true, schema: { enum: [...PAYMENT_METHODS] } }, idempotencyHeader],
      requestBody: { required: true, content: json({ type: 'object', additionalProperties: false, required: ['enabled'], properties: { enabled: { type: 'boolean' } } }) },
      responses: { 200: { description: 'The setting.', content: json(ref('PaymentMethodSetting')) }, ...postErrors },
    },
  },
};

const schemas = {
  NextAction: {
    oneOf: [
      {
        type: 'object', additionalProperties: false, required: ['type', 'url', 'expires_at'],
        properties: { type: { const: 'redirect_to_url' }, url: { type: 'string', format: 'uri' }, expires_at: { type: 'string', format: 'date-time' } },
      },
      {
        type: 'object', additionalProperties: false, required: ['type', 'expires_at', 'display_qr_code'],
        properties: {
          type: { const: 'display_qr_code' }, expires_at: { type: 'string', format: 'date-time' },
          display_qr_code: {
            type: 'object', additionalProperties: false, required: ['data', 'image_url_svg'],
            properties: { data: { type: 'string', description: 'The EMVCo payload the QR code encodes.' }, image_url_svg: { type: 'string', description: 'data:image/svg+xml URL.' } },
          },
        },
      },
      {
        type: 'object', additionalProperties: false, required: ['type', 'expires_at', 'display_bank_transfer_instructions'],
        properties: {
          type: { const: 'display_bank_transfer_instructions' }, expires_at: { type: 'string', format: 'date-time' },
          display_bank_transfer_instructions: {
            type: 'object', additionalProperties: false,
            required: ['bank', 'bank_name', 'account_number', 'account_name', 'reference', 'amount', 'currency'],
            properties: {
              bank: { type: 'string' }, bank_name: { type: 'string' }, account_number: { type: 'string' }, account_name: { type: 'string' },
              reference: { type: 'string' }, amount, currency: { type: 'string' },
            },
          },
        },
      },
    ],
  },
  PaymentMethodOption: {
    type: 'object',
    properties: {
      object: { const: 'payment_method_option' }, payment_method: { type: 'string' }, bank: { type: ['string', 'null'] },
      display_name: { type: 'string' }, next_action_type: { enum: ['redirect_to_url', 'display_qr_code', 'display_bank_transfer_instructions', null] },
      min_amount: { type: ['string', 'null'] }, max_amount: { type: ['string', 'null'] },
      options: {
        type: 'object',
        properties: {
          payer: {
            type: 'object', additionalProperties: false,
            properties: Object.fromEntries(PAYER_FIELDS.map((f) => [f, { type: 'object', properties: { required: { const: true } } }])),
          },
        },
      },
    },
  },
  PaymentMethodSetting: {
    type: 'object',
    properties: {
      object: { const: 'payment_method_setting' }, payment_method: { type: 'string' }, display_name: { type: 'string' },
      enabled: { type: 'boolean' }, updated_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
};

export const METHOD_OPENAPI = { paths, schemas };
