/**
 * QR images for `display_qr_code`, drawn by `qrcode-generator` (ISO/IEC 18004, no
 * dependencies): byte mode, error-correction level M, the smallest version that fits,
 * rendered as a scalable SVG data URL so pages and apps can show it without another request.
 *
 * Stored compactly: a payment row keeps the code's modules (`qrModules`: the module count and
 * the dark modules as a bitmap, a few hundred bytes) instead of the 43 KB data URL, and the
 * URL is drawn again from them when an answer shows it (`svgDataUrlFromModules`, the same
 * bytes as `qrcode-generator`'s `createSvgTag({ cellSize: 4, margin: 4, scalable: true })`,
 * without choosing the mask again, which is most of the cost of `make()`).
 */
import qrcode from 'qrcode-generator';

const CELL = 4;
const MARGIN = 4;

/** `<module count>.<bitmap, row by row, base64url>` of the QR code of `text`. */
export function qrModules(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const n = qr.getModuleCount();
  const bits = Buffer.alloc(Math.ceil((n * n) / 8));
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (qr.isDark(r, c)) {
        const i = r * n + c;
        bits[i >> 3] |= 0x80 >> (i & 7);
      }
    }
  }
  return `${n}.${bits.toString('base64url')}`;
}

const MODULES = /^(\d{2,3})\.([A-Za-z0-9_-]+)$/;

/** The SVG of `qrcode-generator`'s createSvgTag (cellSize 4, margin 4, scalable) drawn from `qrModules`. */
export function svgFromModules(modules: string): string {
  const m = MODULES.exec(modules);
  if (!m) throw new Error('malformed QR modules');
  const n = Number(m[1]);
  const bits = Buffer.from(m[2], 'base64url');
  const size = n * CELL + MARGIN * 2;
  const rect = `l${CELL},0 0,${CELL} -${CELL},0 0,-${CELL}z `;
  const parts: string[] = [
    `<svg version="1.1" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}"  preserveAspectRatio="xMinYMin meet"><rect width="100%" height="100%" fill="white" cx="0" cy="0"/><path d="`,
  ];
  for (let r = 0; r < n; r++) {
    const mr = r * CELL + MARGIN;
    for (let c = 0; c < n; c++) {
      const i = r * n + c;
      if (bits[i >> 3] & (0x80 >> (i & 7))) parts.push(`M${c * CELL + MARGIN},${mr}${rect}`);
    }
  }
  parts.push('" stroke="transparent" fill="black"/></svg>');
  return parts.join('');
}

const DATA_URL_PREFIX = 'data:image/svg+xml;base64,';

export function svgDataUrlFromModules(modules: string): string {
  return `${DATA_URL_PREFIX}${Buffer.from(svgFromModules(modules), 'utf8').toString('base64')}`;
}

/**
 * The modules of a data URL this module drew (read back from its path), or null when the
 * URL is anything else or would not be drawn again byte for byte (migration 1733800000000).
 */
export function modulesFromSvgDataUrl(url: string): string | null {
  if (!url.startsWith(DATA_URL_PREFIX)) return null;
  const svg = Buffer.from(url.slice(DATA_URL_PREFIX.length), 'base64').toString('utf8');
  const box = /viewBox="0 0 (\d+) \1"/.exec(svg);
  if (!box) return null;
  const n = (Number(box[1]) - MARGIN * 2) / CELL;
  if (!Number.isInteger(n) || n < 21 || n > 177) return null;
  const bits = Buffer.alloc(Math.ceil((n * n) / 8));
  for (const cell of svg.matchAll(/M(\d+),(\d+)l/g)) {
    const c = (Number(cell[1]) - MARGIN) / CELL;
    const r = (Number(cell[2]) - MARGIN) / CELL;
    if (!Number.isInteger(c) || !Number.isInteger(r) || c < 0 || r < 0 || c >= n || r >= n) return null;
    const i = r * n + c;
    bits[i >> 3] |= 0x80 >> (i & 7);
  }
  const modules = `${n}.${bits.toString('base64url')}`;
  return svgDataUrlFromModules(modules) === url ? modules : null;
}

/** The modules of the images drawn lately by `qrSvgDataUrl` (storing a fresh next action then needs no read-back). */
const recent = new Map<string, string>();
const RECENT_MAX = 64;

export function qrSvgDataUrl(text: string): string {
  const modules = qrModules(text);
  const url = svgDataUrlFromModules(modules);
  if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value as string);
  recent.set(url, modules);
  return url;
}

/** The modules of `url` if this process drew it lately, else undefined. */
export function recentModules(url: string): string | undefined {
  return recent.get(url);
}

/** The library's own drawing (kept to check `svgFromModules` against it in tests). */
export function qrSvgDataUrlByLibrary(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const svg = qr.createSvgTag({ cellSize: CELL, margin: MARGIN, scalable: true });
  return `${DATA_URL_PREFIX}${Buffer.from(svg, 'utf8').toString('base64')}`;
}
