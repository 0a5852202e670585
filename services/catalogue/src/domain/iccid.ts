/**
 * ICCIDs of record 0250: `89` (telecom) + `882` (international) + a 2-digit issuer
 * + 11 serial digits + one Luhn check digit over the first 18.
 */
export const ICCID_PREFIX = '89882';

/** The issuer id of sandbox profiles; live ICCIDs come from the supplier with its own issuer. */
export const SANDBOX_ISSUER_ID = '99';

const SERIAL_DIGITS = 11;

/** The Luhn check digit of a string of decimal digits. */
export function luhnCheckDigit(digits: string): string {
  if (!/^\d+$/.test(digits)) throw new TypeError('luhnCheckDigit needs decimal digits');
  let sum = 0;
  // Walking from the right, every first digit is doubled: it sits next to the check digit.
  for (let i = digits.length - 1, double = true; i >= 0; i -= 1, double = !double) {
    let d = Number(digits[i]);
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

export function isValidIccid(iccid: string): boolean {
  return /^89882\d{14}$/.test(iccid) && luhnCheckDigit(iccid.slice(0, 18)) === iccid.slice(18);
}

/** An ICCID from a 2-digit issuer id and an 11-digit serial, with its check digit. */
export function makeIccid(issuerId: string, serial: string): string {
  if (!/^\d{2}$/.test(issuerId)) throw new TypeError('an issuer id is 2 digits');
  if (!new RegExp(`^\\d{${SERIAL_DIGITS}}$`).test(serial)) throw new TypeError(`a serial is ${SERIAL_DIGITS} digits`);
  const body = `${ICCID_PREFIX}${issuerId}${serial}`;
  return body + luhnCheckDigit(body);
}

/** `randomDigits(n)` supplies n random decimal digits. */
export function sandboxIccid(randomDigits: (count: number) => string): string {
  return makeIccid(SANDBOX_ISSUER_ID, randomDigits(SERIAL_DIGITS));
}
