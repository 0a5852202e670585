/** The SM-DP+ address of sandbox profiles: the `.invalid` TLD never resolves, so no handset can install one. */
export const SANDBOX_SMDP_ADDRESS = 'sandbox.smdp.invalid';

export const SANDBOX_MATCHING_ID_PREFIX = 'TEST-';

const MATCHING_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SANDBOX_MATCHING_ID_LENGTH = 20;

/** The LPA string a handset scans: `LPA:1$<smdp_address>$<matching_id>`. */
export function activationCode(smdpAddress: string, matchingId: string): string {
  if (smdpAddress.includes('$') || matchingId.includes('$')) throw new TypeError('an LPA field cannot contain "$"');
  return `LPA:1$${smdpAddress}$${matchingId}`;
}

/** `TEST-` + 20 uppercase alphanumerics; `randomIndex(n)` returns a uniform integer in [0, n). */
export function sandboxMatchingId(randomIndex: (bound: number) => number): string {
  let body = '';
  for (let i = 0; i < SANDBOX_MATCHING_ID_LENGTH; i += 1) body += MATCHING_ID_ALPHABET[randomIndex(MATCHING_ID_ALPHABET.length)];
  return SANDBOX_MATCHING_ID_PREFIX + body;
}
