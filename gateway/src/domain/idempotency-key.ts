import { ApiError } from '@connectivity/contracts';

const MIN_LENGTH = 8;
const MAX_LENGTH = 128;

/** Step 7: a mutating route needs `Idempotency-Key`, 8 to 128 characters; the key as validated. */
export function requireIdempotencyKey(header: string | undefined): string {
  if (header === undefined || header === '') throw new ApiError('idempotency_key_required');
  if (header.length < MIN_LENGTH || header.length > MAX_LENGTH) {
    throw new ApiError('invalid_parameter', {
      param: 'Idempotency-Key',
      message: `Invalid header \`Idempotency-Key\`: must be ${MIN_LENGTH} to ${MAX_LENGTH} characters long.`,
    });
  }
  return header;
}
