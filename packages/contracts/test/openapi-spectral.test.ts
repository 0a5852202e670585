import spectralCore from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/index.ts';

const { Document, Spectral } = spectralCore;

// Spectral's `spectral:oas` ruleset, as `spectral lint` applies it to openapi.json: no errors allowed.
describe('openapi.json under Spectral (spectral:oas)', () => {
  it('has no error, and no warning but the two chosen', async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [oas as never] });
    const document = buildOpenApiDocument({ serverUrl: 'https://api.example.test' });
    const results = await spectral.run(new Document(JSON.stringify(document, null, 2), Json, 'openapi.json'));
    const errors = results.filter((result) => Number(result.severity) === 0).map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`);
    expect(errors).toEqual([]);
    // The two warnings it keeps are choices: the error helper answers only errors, and a contact is the operator's to publish.
    const warnings = results.filter((result) => Number(result.severity) === 1).map((result) => `${result.code} at ${result.path.join('.')}`);
    expect(warnings.sort()).toEqual(['info-contact at info', 'operation-success-response at paths./v1/test/error.post.responses']);
  }, 60_000);
});
