import type { OperationObject, ParameterObject, PathsObject, ReferenceObject, ResponseObject } from 'openapi3-ts';
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../../errors/catalogue.ts';
import { routeTable } from '../../routes/route-table.ts';
import { errorExample, OPERATION_EXAMPLES, PARAMETER_EXAMPLES, type OperationExample } from './operations.ts';

function withParameterExample(parameter: ParameterObject | ReferenceObject, example: OperationExample): ParameterObject | ReferenceObject {
  if ('$ref' in parameter) return parameter;
  const value = example.parameters?.[parameter.name] ?? PARAMETER_EXAMPLES[parameter.name];
  return value === undefined ? parameter : { ...parameter, example: value };
}

/**
 * The codes an error status of an operation stands for: those it documents, or, for a status it documents
 * no code of (`POST /v1/test/error` answers any code), every code of the catalogue with that status.
 */
export function errorCodesOf(operationId: string, status: number): ErrorCode[] {
  const documented = routeTable.find((entry) => entry.key === operationId)?.metadata.errors ?? [];
  const ofStatus = (codes: readonly ErrorCode[]) => codes.filter((code) => ERROR_CATALOGUE[code].status === status);
  const codes = ofStatus(documented);
  return codes.length > 0 ? codes : ofStatus(ERROR_CODES);
}

function withResponseExamples(status: string, response: ResponseObject, key: string, example: OperationExample, baseUrl: string): ResponseObject {
  const content = response.content ?? {};
  const code = Number(status);
  if (code >= 400) {
    const codes = errorCodesOf(key, code);
    const examples = Object.fromEntries(codes.map((error) => [error, { summary: error, value: errorExample(error, example, baseUrl) }]));
    return { ...response, content: { 'application/json': { ...content['application/json'], examples } } };
  }
  const media: Record<string, unknown> = example.responseMedia ?? { 'application/json': example.response };
  return {
    ...response,
    content: Object.fromEntries(Object.entries(content).map(([type, item]) => [type, media[type] === undefined ? item : { ...item, example: media[type] }])),
  };
}

/**
 * Puts the contract's examples into the document: each operation's request body and parameters, its
 * success answer, and one error object per documented code of each error status (links under `baseUrl`).
 */
export function attachExamples(paths: PathsObject, baseUrl: string): void {
  for (const item of Object.values(paths) as Record<string, OperationObject>[]) {
    for (const [method, operation] of Object.entries(item)) {
      const key = operation.operationId ?? '';
      const example = OPERATION_EXAMPLES[key as keyof typeof OPERATION_EXAMPLES] as OperationExample | undefined;
      if (example === undefined) throw new Error(`no example for ${method.toUpperCase()} ${key}`);
      if (operation.parameters) operation.parameters = operation.parameters.map((parameter) => withParameterExample(parameter, example));
      const body = operation.requestBody as { content?: Record<string, { example?: unknown }> } | undefined;
      const json = body?.content?.['application/json'];
      if (json && example.body !== undefined) json.example = example.body;
      operation.responses = Object.fromEntries(
        Object.entries(operation.responses as Record<string, ResponseObject>).map(([status, response]) => [
          status,
          withResponseExamples(status, response, key, example, baseUrl),
        ]),
      );
    }
  }
}
