/** The payment link operations: what each command parses and which service method performs it. */
import { defineOperation, withBody } from '../../ops/operation';
import type { LinkService } from './link.service';
import { CreatePaymentLinkBody, UpdatePaymentLinkBody } from './link.schemas';
import { parseCreateLink, parseUpdateLink } from './link.wire';

type ById = { id: string };

export function linkOperations(links: LinkService) {
  return {
    create: defineOperation({
      name: 'payment_link.create',
      label: 'POST /v1/payment_links',
      ...withBody(CreatePaymentLinkBody, (body) => parseCreateLink(body)),
      execute: (tx, ctx, input) => links.create(tx, ctx, input),
    }),
    update: defineOperation({
      name: 'payment_link.update',
      label: 'POST /v1/payment_links/:id',
      ...withBody(UpdatePaymentLinkBody, (body, { id }: ById) => ({ id, input: parseUpdateLink(body) })),
      execute: (tx, ctx, { id, input }) => links.update(tx, ctx, id, input),
    }),
  };
}
