import { z } from 'zod';
import { SERVICE_VERSIONS } from './enums.ts';
import { titled } from './titled.ts';

export const versionSchema = titled(
  'Version',
  z.object({
    object: z.literal('version'),
    version: z.enum(SERVICE_VERSIONS).describe('The version that answers this account (pinned at its first call).'),
    serves: z.array(z.enum(SERVICE_VERSIONS)).describe('Every version the service serves.'),
  }),
);
export type VersionResponse = z.infer<typeof versionSchema>;
