/** The LPA string a handset scans to install a profile: `LPA:1$<smdp_address>$<matching_id>`. */
export function activationCode(smdpAddress: string, matchingId: string): string {
  if (smdpAddress.includes('$') || matchingId.includes('$')) throw new TypeError('an LPA field cannot contain "$"');
  return `LPA:1$${smdpAddress}$${matchingId}`;
}
