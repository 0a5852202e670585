import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { bodyInteger } from '../routes/params.ts';
import { esimSchema } from '../schemas/esim.ts';
import { esimReferenceSchema } from '../schemas/primitives.ts';
import { internalHeadersSchema } from './headers.ts';

const c = initContract();

export const internalUsageBodySchema = z.object({ bytes: bodyInteger().min(1).max(Number.MAX_SAFE_INTEGER) }).strict();

export const internalInventoryContract = c.router(
  {
    recordUsage: {
      method: 'POST',
      path: '/internal/esims/:id/usage',
      summary: 'Record usage on a simulated eSIM (the sandbox simulator drives it); answers the eSIM after it',
      pathParams: z.object({ id: esimReferenceSchema.describe('eSIM id or ICCID.') }),
      body: internalUsageBodySchema,
      responses: {
        200: esimSchema,
        ...errorResponses([
          'missing_parameter',
          'invalid_parameter',
          'test_key_live_resource',
          'live_key_test_resource',
          'resource_not_found',
          'internal_error',
        ]),
      },
    },
  },
  { baseHeaders: internalHeadersSchema, strictStatusCodes: true, metadata: admits('sandbox-simulator') },
);
