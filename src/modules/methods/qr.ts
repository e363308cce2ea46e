/**
 * QR images for `display_qr_code`, drawn by `qrcode-generator` (ISO/IEC 18004, no
 * dependencies): byte mode, error-correction level M, the smallest version that fits,
 * rendered as a scalable SVG data URL so pages and apps can show it without another request.
 */
import qrcode from 'qrcode-generator';

export function qrSvgDataUrl(text: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const svg = qr.createSvgTag({ cellSize: 4, margin: 4, scalable: true });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
