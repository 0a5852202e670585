import type { NextFunction, Request, Response } from 'express';
import type { OpenApiValidator } from './openapi/validator.ts';
import type { Recorder } from './recorder.ts';

/**
 * Marks an answer as one of the vendor's generic errors (authentication, rate limit, not found,
 * injected fault): the vendors describe these in prose for every endpoint, while their documents
 * declare them on a few. Such an answer is not reported for its status being undeclared; its
 * body is still checked wherever the document does declare that status.
 */
export function markGenericError(res: Response, deviationId: string): void {
  res.locals.genericError = deviationId;
}

export interface ExchangeOptions {
  validator: OpenApiValidator;
  recorder: Recorder;
  /** Record every request that does not match the document. */
  checkRequests: boolean;
  /** Record every answer that does not match the document (the fakes' own tests turn this on). */
  checkResponses: boolean;
}

const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
const mediaType = (value: string | undefined) => value?.split(';')[0]?.trim().toLowerCase();

/** Counts each call by its documented operation and checks requests and answers against the document. */
export function exchangeMiddleware(options: ExchangeOptions) {
  const { validator, recorder } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    const path = `${req.baseUrl}${req.path}`;
    const template = validator.templateOf(req.method, path);
    recorder.call(`${req.method} ${template ?? path}`);
    if (options.checkRequests) {
      const sent = hasBody(req);
      const problems = validator.checkRequest({
        method: req.method,
        path,
        query: req.query,
        headers: req.headers,
        contentType: sent ? mediaType(req.headers['content-type']) : undefined,
        body: sent ? req.body : undefined,
      });
      if (problems.length) recorder.requestViolations.push({ at: new Date().toISOString(), method: req.method, path, problems });
    }
    if (options.checkResponses) {
      const send = res.send.bind(res);
      res.send = (body?: unknown) => {
        const contentType = mediaType(res.getHeader('content-type') as string | undefined);
        const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
        let parsed: unknown = text === '' ? undefined : text;
        if (text !== '' && contentType?.includes('json')) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
        }
        let problems = validator.checkResponse({ method: req.method, path, status: res.statusCode, contentType, body: parsed });
        if (res.locals.genericError && problems.length === 1 && problems[0]!.startsWith(`status ${res.statusCode} is not documented`)) problems = [];
        if (problems.length) recorder.responseViolations.push({ at: new Date().toISOString(), method: req.method, path, status: res.statusCode, problems });
        return send(body);
      };
    }
    next();
  };
}
