import { pipeline } from 'node:stream/promises';
import { endOnDrain, isDraining } from '@connectivity/platform';
import type { Response } from 'express';
import type { OpenStreams } from '../domain/open-streams.ts';
import { UpstreamFailure, upstreamError, type ForwardRequest, type Forwarder } from './forwarder.ts';

/**
 * Passes an event stream from its service to the client as each frame arrives: no response
 * cache, no idempotency record, no forward timeout once the headers came. The client leaving
 * aborts the upstream call (the service stops its stream); the upstream ending ends the client's
 * answer; a drain of this gateway ends it too, and the client reconnects with Last-Event-ID.
 * An answer that is not a stream (an error) is sent as any other.
 */
export async function passStream(deps: { forwarder: Forwarder; streams: OpenStreams }, res: Response, request: ForwardRequest): Promise<void> {
  const upstream = new AbortController();
  const abort = () => upstream.abort();
  res.once('close', abort);
  let answer;
  try {
    answer = await deps.forwarder.stream(request, upstream.signal);
  } catch (error) {
    res.off('close', abort);
    // The client left before the stream began: nobody to answer.
    if (upstream.signal.aborted) return;
    throw error instanceof UpstreamFailure ? upstreamError(error) : error;
  }
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.status(answer.status);
  if (!('stream' in answer)) {
    res.off('close', abort);
    res.send(answer.body);
    return;
  }
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  const end = () => {
    upstream.abort();
    res.end();
  };
  endOnDrain(res, end);
  // Its key revoked, rotated or restricted: ended at once (the reconnect meets the key's new state).
  const keyId = request.caller.keyId;
  const unregister = keyId === undefined ? () => undefined : deps.streams.add(keyId, end);
  // This gateway is stopping: the client is sent on to another one at once.
  if (isDraining()) end();
  const body = answer.body;
  try {
    await pipeline(body, res);
  } catch {
    // The client left or the upstream went away: either way this stream is over, and the
    // client's reconnect (with Last-Event-ID) resumes it.
    if (!res.writableEnded) res.destroy();
  } finally {
    unregister();
    res.off('close', abort);
  }
}
