/** One Server-Sent Events message as a client sees it. */
export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** The raw text as received too, so framing can be checked byte for byte. */
export interface SseConnection {
  status: number;
  headers: Headers;
  /** The error object when the answer was not a stream. */
  errorBody?: { error: { code: string; param?: string } };
  messages: SseMessage[];
  comments: string[];
  raw: string;
  /** Resolves once `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/**
 * Opens GET `url` as an event stream and parses it as the SSE specification says (fields up to
 * the first colon, an optional space, blank line ends a message, `:` lines are comments).
 */
export async function openStream(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const connection: SseConnection = {
    status: response.status,
    headers: response.headers,
    messages,
    comments,
    raw: '',
    waitFor(count, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(messages.slice(0, count));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited ${timeoutMs} ms for ${count} messages, got ${messages.length}: ${messages.map((m) => `${m.event} ${m.id}`).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    ended: Promise.resolve(),
    close: () => abort.abort(),
  };
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    connection.errorBody = (await response.json()) as SseConnection['errorBody'];
    return connection;
  }
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let current: SseMessage = { id: undefined, event: undefined, data: '' };
  let hasData = false;
  const feed = (line: string) => {
    if (line === '') {
      if (hasData) messages.push(current);
      current = { id: undefined, event: undefined, data: '' };
      hasData = false;
      return;
    }
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') current.id = value;
    else if (field === 'event') current.event = value;
    else if (field === 'data') {
      current.data = hasData ? `${current.data}\n${value}` : value;
      hasData = true;
    }
  };
  connection.ended = (async () => {
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) return;
        connection.raw += chunk.value;
        buffer += chunk.value;
        let newline;
        while ((newline = buffer.indexOf('\n')) !== -1) {
          feed(buffer.slice(0, newline).replace(/\r$/, ''));
          buffer = buffer.slice(newline + 1);
        }
        for (const waiter of [...waiters]) waiter();
      }
    } catch {
      // Aborted by close().
    }
  })();
  return connection;
}
