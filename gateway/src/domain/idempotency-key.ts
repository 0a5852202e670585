import { ApiError } from '@connectivity/contracts';

const MIN_LENGTH = 8;
const MAX_LENGTH = 128;

// Printable ASCII: a key is passed on in a header to the owning service, and stored as text.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Step 7: a mutating route needs `Idempotency-Key`, 8 to 128 printable ASCII characters; the key
 * as validated. Bytes outside ASCII (Node reads header bytes as Latin-1) are refused here with
 * the error object rather than failing the call to the service (record 0203).
 */
export function requireIdempotencyKey(header: string | undefined): string {
  if (header === undefined || header === '') throw new ApiError('idempotency_key_required');
  if (header.length < MIN_LENGTH || header.length > MAX_LENGTH) {
    throw new ApiError('invalid_parameter', {
      param: 'Idempotency-Key',
      message: `Invalid header \`Idempotency-Key\`: must be ${MIN_LENGTH} to ${MAX_LENGTH} characters long.`,
    });
  }
  if (!PRINTABLE_ASCII.test(header)) {
    throw new ApiError('invalid_parameter', {
      param: 'Idempotency-Key',
      message: 'Invalid header `Idempotency-Key`: must be printable ASCII characters only (e.g. a UUID).',
    });
  }
  return header;
}
