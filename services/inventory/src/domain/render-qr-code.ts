import type { QrCodeMediaType } from '@connectivity/contracts';
import QRCode from 'qrcode';

// Error correction M (15 %) survives a smudged screen; 4 modules of quiet zone is what scanners
// expect; 8 pixels a module makes an image of about 300 pixels for an activation code.
const ERROR_CORRECTION = 'M';
const MARGIN = 4;
const PIXELS_PER_MODULE = 8;

/** The QR code of `text` as a PNG, or as an SVG document of the same size. */
export async function renderQrCode(text: string, type: QrCodeMediaType): Promise<Buffer> {
  const options = { errorCorrectionLevel: ERROR_CORRECTION, margin: MARGIN } as const;
  if (type === 'image/png') return QRCode.toBuffer(text, { ...options, type: 'png', scale: PIXELS_PER_MODULE });
  const modules = QRCode.create(text, { errorCorrectionLevel: ERROR_CORRECTION }).modules.size;
  const width = (modules + 2 * MARGIN) * PIXELS_PER_MODULE;
  return Buffer.from(await QRCode.toString(text, { ...options, type: 'svg', width }), 'utf8');
}
