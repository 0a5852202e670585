import SwaggerParser from '@apidevtools/swagger-parser';
import { isAppRoute, type AppRoute, type AppRouter } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { adminContract, buildAdminOpenApiDocument, buildOpenApiDocument, errorResponseSchema } from '../src/index.ts';

const routes = (router: AppRouter): AppRoute[] => Object.values(router).flatMap((value) => (isAppRoute(value) ? [value] : routes(value)));

describe('the admin contract', () => {
  it('covers only /admin paths, each answering errors with the error object, 401 included', () => {
    for (const route of routes(adminContract)) {
      expect(route.path).toMatch(/^\/admin\//);
      const responses = route.responses as Record<number, unknown>;
      for (const status of [401, 500]) expect(responses[status], `${route.method} ${route.path} ${status}`).toBe(errorResponseSchema);
      expect(
        Object.keys(responses)
          .filter((status) => Number(status) >= 400)
          .every((status) => responses[Number(status)] === errorResponseSchema),
      ).toBe(true);
    }
  });

  it('gives a valid OpenAPI document of its own, and none of it is in the public one', async () => {
    const document = buildAdminOpenApiDocument();
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
    expect(Object.keys(document.paths)).toHaveLength(new Set(routes(adminContract).map((route) => route.path)).size);
    expect(Object.keys(buildOpenApiDocument().paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
  });
});
