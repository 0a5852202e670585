import { extendApi, generateSchema } from '@anatine/zod-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiOverride } from '../src/schemas/openapi-override.ts';

// The public contract carries its OpenAPI overrides without the generator's package; the generator must read them as its own.
describe('openApiOverride', () => {
  it('marks a schema exactly as extendApi does, and merges later overrides', () => {
    const ours = openApiOverride(openApiOverride(z.string(), { title: 'Name' }), { description: 'A name.' });
    const theirs = extendApi(extendApi(z.string(), { title: 'Name' }), { description: 'A name.' });
    // The generator reads its overrides from this property; zod schemas carry per-instance functions, so compare it alone.
    expect((ours as { metaOpenApi?: unknown }).metaOpenApi).toEqual((theirs as { metaOpenApi?: unknown }).metaOpenApi);
    expect(generateSchema(ours)).toEqual(generateSchema(theirs));
    expect(generateSchema(ours)).toMatchObject({ type: 'string', title: 'Name', description: 'A name.' });
  });
});
