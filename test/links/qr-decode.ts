/**
 * Decodes a QR code SVG as the qrcode package draws it (one stroked path of horizontal runs,
 * `M x y.5 h n m dx dy ...`, on a white square) with jsQR: the runs are painted into an RGBA
 * bitmap at `scale` pixels per module, then read as a camera image would be.
 */
import jsQR from 'jsqr';

export function decodeQrSvg(svg: string, scale = 8): string | null {
  const size = Number(/viewBox="0 0 (\d+) (\d+)"/.exec(svg)?.[1]);
  const d = /<path stroke="[^"]+" d="([^"]+)"/.exec(svg)?.[1];
  if (!size || !d) return null;
  const px = size * scale;
  const data = new Uint8ClampedArray(px * px * 4).fill(255);
  let x = 0;
  let y = 0;
  for (const [, cmd, a, b] of d.matchAll(/([MmHh])(-?[\d.]+)(?:\s+(-?[\d.]+))?/g)) {
    if (cmd === 'M' || cmd === 'm') {
      x = cmd === 'M' ? Number(a) : x + Number(a);
      y = cmd === 'M' ? Number(b) : y + Number(b);
      continue;
    }
    const to = cmd === 'H' ? Number(a) : x + Number(a);
    const row = Math.floor(y);
    for (let mx = x; mx < to; mx++) {
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const i = ((row * scale + dy) * px + mx * scale + dx) * 4;
          data[i] = data[i + 1] = data[i + 2] = 0;
        }
      }
    }
    x = to;
  }
  return jsQR(data, px, px)?.data ?? null;
}
