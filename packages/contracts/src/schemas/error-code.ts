import { z } from 'zod';
import { ERROR_CODES, ERROR_TYPES } from '../errors/catalogue.ts';
import { titled } from './titled.ts';

export const errorCodeItemSchema = titled(
  'ErrorCodeItem',
  z.object({
    object: z.literal('error_code'),
    code: z.enum(ERROR_CODES),
    type: z.enum(ERROR_TYPES),
    status: z.number().int(),
    description: z.string(),
  }),
);
export type ErrorCodeItem = z.infer<typeof errorCodeItemSchema>;
