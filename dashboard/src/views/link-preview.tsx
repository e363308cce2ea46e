/**
 * What the payer of a new payment link will see, drawn like the link's page (/pay/<token>):
 * the merchant, the description, the amount (or the amount field with its bounds), the
 * methods the server would offer and Continue. Nothing in it is a control.
 */
import type { LinkMethodsQuery } from '../gql/graphql';

export type Option = NonNullable<LinkMethodsQuery['paymentMethodOptions']>['nodes'][number];

export interface PreviewProps {
  merchant: string;
  description: string;
  currency: string;
  /** The fixed amount, formatted; or the bounds of the payer's amount. */
  amount: string | { min: string; max: string };
  /** The methods the payer would choose from; a string while they are not known. */
  options: Option[] | string;
}

export function LinkPreview({ merchant, description, currency, amount, options }: PreviewProps) {
  return (
    <section class="pay-preview" aria-labelledby="preview-title" data-testid="link-preview">
      <h3 id="preview-title">What the payer will see</h3>
      <div class="pay-card">
        <p class="pay-merchant">
          Pay <strong>{merchant}</strong>
        </p>
        <p class="pay-title" data-testid="preview-description">
          {description || 'Payment'}
        </p>
      </div>
      <div class="pay-card">
        {typeof amount === 'string' ? (
          <p class="pay-amount" data-testid="preview-amount">
            {amount}
          </p>
        ) : (
          <div class="pay-field" data-testid="preview-amount-field">
            Amount ({currency})
            <span class="pay-hint" data-testid="preview-bounds">
              Between {amount.min} and {amount.max}
            </span>
            <span class="pay-input" />
          </div>
        )}
        {typeof options === 'string' ? (
          <p class="muted">{options}</p>
        ) : options.length === 0 ? (
          <p data-testid="preview-none">No payment method is available right now. Please contact the merchant.</p>
        ) : (
          <>
            <p class="pay-legend">Choose how to pay</p>
            <ul class="pay-options" data-testid="preview-methods">
              {options.map((o, i) => (
                <li key={o.id} class={i === 0 ? 'on' : ''} data-testid={`preview-${o.paymentMethod}`}>
                  <strong>{o.displayName}</strong>
                  <small>{o.hint}</small>
                </li>
              ))}
            </ul>
            <p class="pay-button">Continue</p>
          </>
        )}
      </div>
    </section>
  );
}
