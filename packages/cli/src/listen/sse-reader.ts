/** One Server-Sent Events message. */
export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * The messages of an SSE body as they arrive, parsed as the specification says: `field: value`
 * lines (one optional space after the colon), a blank line ends a message, `:` lines are
 * comments (keepalives), `retry:` is the server's reconnect delay (given to `onRetry`).
 */
export async function* readSse(body: ReadableStream<Uint8Array>, onRetry?: (ms: number) => void): AsyncGenerator<SseMessage> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let message: SseMessage = { id: undefined, event: undefined, data: '' };
  let hasData = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += chunk.value;
      let newline;
      while ((newline = buffer.search(/\r\n|\n|\r/)) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (hasData) yield message;
          message = { id: undefined, event: undefined, data: '' };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') message.id = value;
        else if (field === 'event') message.event = value;
        else if (field === 'data') {
          message.data = hasData ? `${message.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'retry' && /^\d+$/.test(value)) onRetry?.(Number(value));
      }
    }
  } finally {
    reader.releaseLock();
  }
}
