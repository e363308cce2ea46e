/**
 * How `payment_intents.next_action` is stored. A QR code's image (`image_url_svg`, a 43 KB
 * data URL) is not stored: the row keeps the code's modules (`qr_modules`, ~400 bytes, see
 * qr.ts), and the loaded value gets `image_url_svg` back as a lazy property, drawn from the
 * modules only when something reads it (an answer that shows the payment in
 * requires_action), in the same place among the keys and with the same bytes as before.
 * Rows written before migration 1733800000000 (or not rewritten by it) still carry the URL
 * and are read as they are.
 */
import type { ValueTransformer } from 'typeorm';
import type { NextAction } from './next-action';
import { modulesFromSvgDataUrl, recentModules, svgDataUrlFromModules } from './qr';

/** Recently drawn images by modules (a payment shown again does not draw again). */
const drawn = new Map<string, string>();
const DRAWN_MAX = 256;

function draw(modules: string): string {
  let url = drawn.get(modules);
  if (url === undefined) {
    url = svgDataUrlFromModules(modules);
    if (drawn.size >= DRAWN_MAX) drawn.delete(drawn.keys().next().value as string);
    drawn.set(modules, url);
  }
  return url;
}

/** The stored form of a next action: a QR code keeps its payload and modules, not its image. */
export function storedNextAction(value: NextAction): unknown {
  if (value.type !== 'display_qr_code') return value;
  const { data, image_url_svg: image } = value.display_qr_code;
  // Read back from the image itself (no new QR encoding), and only if drawing the modules
  // gives the very same bytes; anything else is stored as it is.
  const modules = typeof image === 'string' ? (recentModules(image) ?? modulesFromSvgDataUrl(image)) : null;
  if (modules === null) return value;
  if (drawn.size >= DRAWN_MAX) drawn.delete(drawn.keys().next().value as string);
  drawn.set(modules, image);
  return { ...value, display_qr_code: { data, qr_modules: modules } };
}

/** A stored next action as the API shows it (the QR image drawn lazily from its modules). */
export function loadedNextAction(stored: Record<string, unknown>): NextAction {
  const qr = stored.display_qr_code as { data: string; qr_modules?: string; image_url_svg?: string } | undefined;
  if (stored.type !== 'display_qr_code' || !qr || typeof qr.qr_modules !== 'string') return stored as unknown as NextAction;
  const modules = qr.qr_modules;
  const details = { data: qr.data } as { data: string; image_url_svg: string };
  Object.defineProperty(details, 'image_url_svg', {
    enumerable: true,
    configurable: true,
    get(this: typeof details) {
      const url = draw(modules);
      Object.defineProperty(this, 'image_url_svg', { value: url, enumerable: true, writable: true, configurable: true });
      return url;
    },
    set(this: typeof details, url: string) {
      Object.defineProperty(this, 'image_url_svg', { value: url, enumerable: true, writable: true, configurable: true });
    },
  });
  return { ...stored, display_qr_code: details } as unknown as NextAction;
}

export const nextActionTransformer: ValueTransformer = {
  to: (value: NextAction | null | undefined) => (value === null || value === undefined ? null : JSON.stringify(storedNextAction(value))),
  from: (value: string | null | undefined) => (value === null || value === undefined ? null : loadedNextAction(JSON.parse(value) as Record<string, unknown>)),
};
