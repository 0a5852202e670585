import { ApiError } from '@connectivity/contracts';
import { MAX_BODY_BYTES } from '@connectivity/platform';
import type { Request } from 'express';

const tooLarge = (limit: number) =>
  new ApiError('invalid_parameter', { param: 'body', message: `The request body is larger than ${limit === MAX_BODY_BYTES ? '1 MiB' : `${limit} bytes`}.` });

/** The deadline of a body read (record 0201): the whole body within `ms` of the read's start. */
export interface BodyDeadline {
  ms: number;
}

const timedOut = (ms: number) =>
  new ApiError('request_timeout', {
    message: `The request body did not arrive within ${ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}. The connection is closed; send the request again.`,
  });

/**
 * A client that sent too slowly is answered and then let go: the answer says `Connection: close`
 * and the socket is closed once it is written, so the rest of a trickled body is never read.
 */
function closeAfterAnswer(req: Request): void {
  const res = req.res;
  if (!res) {
    req.socket.destroy();
    return;
  }
  res.setHeader('Connection', 'close');
  res.once('finish', () => req.socket.destroySoon());
  res.once('close', () => req.socket.destroy());
}

/**
 * Reads the raw body, refusing more than `limit` (1 MiB by record 0255) without buffering the
 * excess, and a body still incomplete at `deadline` (408 `request_timeout`, the connection then
 * closed; record 0201). The bytes are kept as they came: they are hashed for idempotency and
 * forwarded unchanged. A body over the limit, declared or chunked, leaves the request flowing
 * (Node discards the rest once the answer is sent) rather than destroyed, so the client still
 * reads the 400.
 */
export async function readRawBody(req: Request, limit = MAX_BODY_BYTES, deadline?: BodyDeadline): Promise<Buffer> {
  const declared = Number(req.get('content-length') ?? '0');
  if (declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  if (req.readableEnded) return Buffer.alloc(0);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = deadline
      ? setTimeout(() => {
          stop();
          closeAfterAnswer(req);
          reject(timedOut(deadline.ms));
        }, deadline.ms)
      : undefined;
    // Stopping early leaves the request as it is (not destroyed): the answer goes out on its socket.
    const stop = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
