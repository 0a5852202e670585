import { luhnCheckDigit } from '../../domain/iccid.ts';
import { SupplierError } from './port.ts';

/**
 * ICCIDs between a vendor and us (docs/decisions/0131-vendor-iccids-of-20-digits.md). Ours have
 * 19 digits (the specification). A vendor's of 19 digits are taken as they are; one of 20 digits
 * whose last digit is the Luhn check digit of the first 19 is ours without that digit: the
 * check digit is derived, so nothing is lost and the vendor's form is rebuilt when we call it.
 * Anything else cannot be one of our eSIMs.
 */
export function ourIccid(vendorIccid: string): string | undefined {
  if (/^\d{19}$/.test(vendorIccid)) return vendorIccid;
  if (/^\d{20}$/.test(vendorIccid) && luhnCheckDigit(vendorIccid.slice(0, 19)) === vendorIccid.slice(19)) return vendorIccid.slice(0, 19);
  return undefined;
}

/**
 * The forms of one of our ICCIDs a vendor may know it by, most likely first. A vendor issues
 * ICCIDs of one length per account; the adapter remembers the last length it saw, so only the
 * first call after a restart may need the second form.
 */
export class VendorIccids {
  private long = false;

  /** Notes the form a vendor used and returns ours (undefined: not an ICCID we can hold). */
  fromVendor(vendorIccid: string): string | undefined {
    const ours = ourIccid(vendorIccid);
    if (ours !== undefined) this.long = vendorIccid.length === 20;
    return ours;
  }

  candidates(iccid: string): string[] {
    const long = iccid + luhnCheckDigit(iccid);
    return this.long ? [long, iccid] : [iccid, long];
  }
}

/**
 * `work` run with the form of one of our ICCIDs the vendor knows: `unknown` from the first form, the
 * other is tried; the form that answered is remembered.
 */
export async function withKnownIccid<T>(iccids: VendorIccids, vendor: string, iccid: string, work: (vendorIccid: string) => Promise<T>): Promise<T> {
  for (const candidate of iccids.candidates(iccid)) {
    try {
      const result = await work(candidate);
      iccids.fromVendor(candidate);
      return result;
    } catch (error) {
      if (!(error instanceof SupplierError) || error.failure !== 'unknown') throw error;
    }
  }
  throw new SupplierError('unknown', `${vendor} does not know eSIM ${iccid}`);
}
