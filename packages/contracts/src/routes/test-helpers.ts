import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { ERROR_CODES } from '../errors/catalogue.ts';
import { esimSchema } from '../schemas/esim.ts';
import { titled } from '../schemas/titled.ts';
import { errorResponses, operation } from './operation.ts';
import { bodyInteger } from './params.ts';

const c = initContract();

export const simulateUsageBodySchema = titled(
  'SimulateUsageRequest',
  z
    .object({
      esim: z.string().min(1).max(200).describe('The simulated eSIM: its id or its ICCID.'),
      bytes: bodyInteger().min(1).max(Number.MAX_SAFE_INTEGER).describe('Bytes of data used, at least 1.'),
    })
    .strict(),
);

export const triggerErrorBodySchema = titled(
  'TriggerErrorRequest',
  z
    .object({
      code: z.enum(ERROR_CODES).describe('Any code of the error catalogue.'),
      param: z.string().min(1).max(200).optional().describe('Returned as the error’s `param`.'),
      message: z.string().min(1).max(1000).optional().describe('Returned as the error’s `message`.'),
    })
    .strict(),
);

/** Sandbox-only helpers (test keys), owned by the sandbox simulator. */
export const testHelperRoutes = c.router({
  simulateUsage: {
    path: '/v1/test/usage',
    summary: 'Simulate data usage',
    description:
      'Drives usage on a simulated eSIM: a `released` or `installed` eSIM first becomes `active`; usage is cut off at ' +
      'the data limit, which expires the eSIM; `esim.usage.threshold` fires at 50, 80 and 100 percent. Test keys only.',
    body: simulateUsageBodySchema,
    ...operation(
      'POST',
      { 200: esimSchema },
      {
        service: 'sandbox-simulator',
        scopes: ['test_helpers'],
        testOnly: true,
        errors: ['missing_parameter', 'invalid_parameter', 'test_key_live_resource', 'live_key_test_resource', 'resource_not_found'],
      },
    ),
  },
  triggerTestError: {
    path: '/v1/test/error',
    summary: 'Produce an error',
    description:
      'Answers with the error chosen by `code`: its status from the error table, and `param`/`message` from the body ' +
      'when given. Lets a client exercise its error handling. Test keys only.',
    body: triggerErrorBodySchema,
    // Every status of the catalogue is a possible answer: the one of the chosen code.
    ...operation('POST', errorResponses(ERROR_CODES), {
      service: 'sandbox-simulator',
      scopes: ['test_helpers'],
      testOnly: true,
      errors: ['missing_parameter', 'invalid_parameter', 'live_key_test_resource'],
    }),
  },
});
