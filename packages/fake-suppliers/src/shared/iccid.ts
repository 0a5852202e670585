import { randomInt } from 'node:crypto';

/** The Luhn check digit ICCIDs end with (ITU-T E.118). */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** A fresh ICCID of `length` digits (19 or 20) starting with `prefix` ("89" + country + issuer). */
export function newIccid(prefix: string, length: 19 | 20, taken: (iccid: string) => boolean): string {
  for (;;) {
    let body = prefix;
    while (body.length < length - 1) body += String(randomInt(10));
    const iccid = body + luhnCheckDigit(body);
    if (!taken(iccid)) return iccid;
  }
}

const MATCHING_ID_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** An activation code in groups of five, as SM-DP+ servers issue them (e.g. YVTGM-5LZC6-PIC56-KFEZJ). */
export function newMatchingId(groups = 4): string {
  return Array.from({ length: groups }, () => Array.from({ length: 5 }, () => MATCHING_ID_ALPHABET[randomInt(MATCHING_ID_ALPHABET.length)]).join('')).join('-');
}
