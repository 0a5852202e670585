import dgram from 'node:dgram';

/**
 * A DNS server on a loopback UDP port for tests: it answers A queries for the names it is given
 * (TTL 0, so every lookup asks again), says "no such name" for others, and never answers a name
 * set to `silent` (a server that does not answer). It counts the questions it got, by name.
 */
export class DnsServer {
  private readonly records = new Map<string, string[] | 'silent'>();
  readonly questions: string[] = [];
  private readonly socket: dgram.Socket;

  private constructor(socket: dgram.Socket) {
    this.socket = socket;
  }

  static async start(): Promise<DnsServer> {
    const socket = dgram.createSocket('udp4');
    const server = new DnsServer(socket);
    socket.on('message', (message, from) => server.handle(message, from));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return server;
  }

  /** `127.0.0.1:port`, for WEBHOOK_DNS_SERVERS. */
  get address(): string {
    const { address, port } = this.socket.address();
    return `${address}:${port}`;
  }

  /** `name` answers these IPv4 addresses from now on, or nothing at all (`silent`). */
  set(name: string, answer: string[] | 'silent'): void {
    this.records.set(name.toLowerCase(), answer);
  }

  private handle(message: Buffer, from: dgram.RemoteInfo): void {
    // Header (12 bytes), then the question: labels, a zero byte, type and class.
    let offset = 12;
    const labels: string[] = [];
    while (offset < message.length && message[offset] !== 0) {
      const length = message[offset] ?? 0;
      labels.push(message.subarray(offset + 1, offset + 1 + length).toString('ascii'));
      offset += 1 + length;
    }
    const questionEnd = offset + 5;
    const type = message.readUInt16BE(offset + 1);
    const name = labels.join('.').toLowerCase();
    this.questions.push(name);
    const record = this.records.get(name);
    if (record === 'silent') return;
    const answers = record && type === 1 ? record : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0);
    // A response, recursion desired and available; NXDOMAIN for a name it does not know.
    header.writeUInt16BE(record ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(1, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(0, 6);
      rr.writeUInt16BE(4, 10);
      address.split('.').forEach((part, i) => rr.writeUInt8(Number(part), 12 + i));
      return rr;
    });
    this.socket.send(Buffer.concat([header, message.subarray(12, questionEnd), ...records]), from.port, from.address);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
