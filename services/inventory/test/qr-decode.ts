import { DOMParser } from '@xmldom/xmldom';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

// jsqr is CommonJS: Node's default import is its `module.exports`, which carries the function as `default` too.
const jsQR = jsQRModule.default;

// Reads QR codes back the way a phone would: from pixels, with a decoder that knows nothing of how
// they were drawn.

/** The text of the QR code in a PNG, or undefined when none is found. */
export function decodePng(bytes: Buffer): string | undefined {
  const png = PNG.sync.read(bytes);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

export const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';

/** Parses an SVG document strictly (any XML error throws) and returns its root element. */
export function parseSvg(text: string) {
  const document = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(`not well-formed XML: ${message}`);
    },
  }).parseFromString(text, 'image/svg+xml');
  const root = document.documentElement;
  if (root?.localName !== 'svg' || root.namespaceURI !== SVG_NAMESPACE) throw new Error('the root element is not <svg> in the SVG namespace');
  return root;
}

/**
 * Rasterises the QR code of an SVG document as the `qrcode` library draws it (a `viewBox` of one
 * unit a module, dark modules as horizontal runs of a stroked path: `M`, `m` and `h`/`H`), four
 * pixels a module, and decodes it. Any other drawing command fails the test rather than misread.
 */
export function decodeSvg(text: string): string | undefined {
  const root = parseSvg(text);
  const size = Number((root.getAttribute('viewBox') ?? '').split(/\s+/)[2]);
  if (!Number.isInteger(size) || size <= 0) throw new Error('no square viewBox');
  const dark: boolean[][] = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  const paths = Array.from(root.getElementsByTagName('path')).filter((path) => path.getAttribute('stroke') !== null);
  for (const path of paths) {
    let x = 0;
    let y = 0;
    for (const [, command = '', args = ''] of (path.getAttribute('d') ?? '').matchAll(/([A-Za-z])([^A-Za-z]*)/g)) {
      const numbers = args
        .trim()
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number);
      if (command === 'M' || command === 'm') {
        x = (command === 'm' ? x : 0) + (numbers[0] ?? 0);
        y = (command === 'm' ? y : 0) + (numbers[1] ?? 0);
      } else if (command === 'h' || command === 'H') {
        const end = command === 'h' ? x + (numbers[0] ?? 0) : (numbers[0] ?? 0);
        for (let column = Math.round(x); column < Math.round(end); column += 1) {
          const row = dark[Math.floor(y)];
          if (row) row[column] = true;
        }
        x = end;
      } else {
        throw new Error(`unexpected path command ${command}`);
      }
    }
  }
  const scale = 4;
  const pixels = new Uint8ClampedArray(size * scale * size * scale * 4);
  for (let py = 0; py < size * scale; py += 1) {
    for (let px = 0; px < size * scale; px += 1) {
      const value = dark[Math.floor(py / scale)]?.[Math.floor(px / scale)] ? 0 : 255;
      pixels.set([value, value, value, 255], (py * size * scale + px) * 4);
    }
  }
  return jsQR(pixels, size * scale, size * scale)?.data;
}
