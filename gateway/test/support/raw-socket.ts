import { connect, type Socket } from 'node:net';

/** An answer as read off a raw socket, and whether the server closed the connection after it. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server ended the connection (it did not wait for more of the request). */
  closed: boolean;
  /** Milliseconds from the first byte sent to the end of the answer. */
  elapsedMs: number;
}

/** A socket to `port` that can be written to in pieces, and read as one answer. */
export interface RawClient {
  socket: Socket;
  write(text: string | Buffer): void;
  /** The answer, once the server closed the connection or `waitMs` passed (then `closed` is false). */
  answer(waitMs?: number): Promise<RawAnswer>;
  /** Writes one byte of `text` every `everyMs` until the server closes or the text is sent. */
  trickle(text: string, everyMs: number): void;
  close(): void;
}

function parse(raw: Buffer, closed: boolean, elapsedMs: number): RawAnswer {
  const text = raw.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(statusLine.split(' ')[1] ?? 0),
    headers,
    body: split === -1 ? '' : raw.subarray(Buffer.byteLength(text.slice(0, split + 4), 'latin1')).toString('utf8'),
    closed,
    elapsedMs,
  };
}

/** Opens a raw connection (for what supertest would not send: trickled bodies, raw header bytes). */
export async function rawClient(port: number): Promise<RawClient> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const chunks: Buffer[] = [];
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  const started = Date.now();
  let endedAt = 0;
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  // A reset after the answer still ends the exchange.
  socket.on('error', () => {});
  const finished = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true;
      endedAt = Date.now();
      clearInterval(timer);
      resolve();
    }),
  );
  return {
    socket,
    write: (text) => {
      if (!socket.destroyed) socket.write(text);
    },
    trickle(text, everyMs) {
      let at = 0;
      timer = setInterval(() => {
        if (socket.destroyed || at >= text.length) {
          clearInterval(timer);
          return;
        }
        socket.write(text.slice(at, at + 1));
        at += 1;
      }, everyMs);
    },
    async answer(waitMs = 10_000) {
      await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, waitMs))]);
      return parse(Buffer.concat(chunks), ended, (ended ? endedAt : Date.now()) - started);
    },
    close: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}
