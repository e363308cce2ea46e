/** Row errors of a payout batch: the browser's checks of the file, or an invalid batch's errors from the server. */
export function RowErrors({ errors, testid }: { errors: { row: number; column: string; message: string }[]; testid: string }) {
  if (errors.length === 0) return null;
  return (
    <div class="error" role="alert">
      <ul data-testid={testid}>
        {errors.map((e, i) => (
          <li key={i}>
            {e.row > 0 ? `Row ${e.row}, ` : ''}
            <code>{e.column}</code> {e.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
