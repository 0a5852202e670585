import { QR_CODE_MEDIA_TYPES, type QrCodeMediaType } from '@connectivity/contracts';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseRange(part: string): MediaRange | undefined {
  const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim());
  const [type, subtype] = range.toLowerCase().split('/');
  if (!type || !subtype) return undefined;
  let q = 1;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=').map((piece) => piece.trim());
    if (name?.toLowerCase() !== 'q') continue;
    const parsed = Number(value);
    q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 1;
  }
  return { type, subtype, q };
}

/** How much `ranges` want `mediaType`: the q of the most specific range that matches it (RFC 9110 §12.5.1), 0 if none. */
function quality(ranges: MediaRange[], mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0 || (best !== undefined && best.specificity >= specificity)) continue;
    best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

/**
 * The image type of a QR code answer, from the request's `Accept`: SVG when it is preferred to
 * PNG (a higher q), PNG otherwise: by default, on a tie (e.g. `image/*` or any type) and when
 * `Accept` allows neither (nothing else can be made, and an image is more use than a 406).
 */
export function chooseQrMediaType(accept: string | undefined): QrCodeMediaType {
  const [png, svg] = QR_CODE_MEDIA_TYPES;
  if (accept === undefined || accept.trim() === '') return png;
  const ranges = accept.split(',').flatMap((part) => parseRange(part) ?? []);
  return quality(ranges, svg) > quality(ranges, png) ? svg : png;
}
