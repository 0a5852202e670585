import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '@connectivity/contracts';
import { newId } from '../ids.ts';

function errorFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('invalid_parameter', { param: 'headers', message: 'The request headers are larger than 16 KiB.' });
    // Node's headers and whole-request deadlines (record 0201).
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout');
    default:
      return new ApiError('invalid_parameter', {
        message: 'The request is not valid HTTP/1.1: check the request line, the path (percent-encode anything but ASCII) and the headers.',
      });
  }
}

/**
 * Node answers a request its HTTP parser refuses (malformed, raw non-ASCII bytes in the path,
 * headers over 16 KiB) with a bare 400 or 431 before any middleware runs. This answers it the
 * way every other error is answered: the error object (for a HEAD, its headers alone), a
 * `Request-Id`, then the connection closes.
 */
export function answerClientErrors(server: Server, baseUrl: string): void {
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const apiError = errorFor(error.code);
    const body = JSON.stringify(apiError.toBody(baseUrl));
    // A HEAD is answered with the status and headers alone (RFC 9110 §9.3.2): a body after them
    // would be read as the start of the next answer (record 0203).
    const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      [
        `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? 'Bad Request'}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `Request-Id: ${newId('request')}`,
        'Connection: close',
        '',
        head ? '' : body,
      ].join('\r\n'),
    );
  });
}
