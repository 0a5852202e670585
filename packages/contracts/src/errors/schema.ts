import { z } from 'zod';
import { ERROR_CODES, ERROR_TYPES } from './catalogue.ts';
import { titled } from '../schemas/titled.ts';

export const errorObjectSchema = titled(
  'Error',
  z.object({
    type: z.enum(ERROR_TYPES),
    code: z.enum(ERROR_CODES),
    message: z.string(),
    param: z.string().optional(),
    link: z.string().url(),
    detail: z.string().optional(),
  }),
);

/** The body of every error response: `{ error: {...} }`. */
export const errorResponseSchema = titled('ErrorResponse', z.object({ error: errorObjectSchema }));

export type ErrorObject = z.infer<typeof errorObjectSchema>;
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
