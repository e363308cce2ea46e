import { MigrationInterface, QueryRunner } from 'typeorm';
import { loadedNextAction, storedNextAction } from '../../modules/methods/next-action.column';
import type { NextAction } from '../../modules/methods/next-action';

const BATCH = 500;

/**
 * `payment_intents.next_action` without the QR image (src/modules/methods/next-action.column.ts):
 * a `display_qr_code` keeps its payload and modules, and the image is drawn from them when an
 * answer shows it, byte for byte the one stored before. A row whose image would not be drawn
 * again byte for byte is left as it is. Events (their `data` snapshots) and sealed
 * idempotency answers are not touched: they replay the bytes first sent.
 */
export class QrModules1733800000000 implements MigrationInterface {
  name = 'QrModules1733800000000';

  async up(qr: QueryRunner): Promise<void> {
    await this.rewrite(qr, '%"image_url_svg"%', (action) => storedNextAction(action));
  }

  async down(qr: QueryRunner): Promise<void> {
    await this.rewrite(qr, '%"qr_modules"%', (action) => JSON.parse(JSON.stringify(action)) as unknown);
  }

  /** Rewrites the matching rows in batches (by id), each with `convert` of its loaded next action. */
  private async rewrite(qr: QueryRunner, like: string, convert: (action: NextAction) => unknown): Promise<void> {
    for (let lastId = ''; ;) {
      const rows = (await qr.query('SELECT id, next_action FROM payment_intents WHERE id > ? AND next_action LIKE ? ORDER BY id LIMIT ?', [
        lastId,
        like,
        BATCH,
      ])) as { id: string; next_action: string }[];
      for (const row of rows) {
        const stored = JSON.stringify(convert(loadedNextAction(JSON.parse(row.next_action) as Record<string, unknown>)));
        if (stored !== row.next_action) await qr.query('UPDATE payment_intents SET next_action = ? WHERE id = ?', [stored, row.id]);
      }
      if (rows.length < BATCH) return;
      lastId = rows[rows.length - 1].id;
    }
  }
}
