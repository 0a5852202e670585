import { isIPv4, isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address (zone dropped, an embedded IPv4 tail converted). */
function groupsOf(address: string): number[] | undefined {
  let text = address.split('%')[0] ?? '';
  // A dotted IPv4 tail (`::ffff:192.0.2.1`, `64:ff9b::192.0.2.1`) is two groups.
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = rest === undefined ? [] : parse(rest);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined;
  const groups = [...front, ...Array<number>(missing).fill(0), ...back];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

const hex = (group: number) => group.toString(16);

/**
 * Whom an address budget counts (record 0202): an IPv4 client by its address; an IPv6 client by
 * its /64, the smallest network a provider hands one subscriber (a host picks any of its 2^64
 * addresses at will, so counting them one by one counts nothing); an IPv4-mapped IPv6 address
 * (`::ffff:192.0.2.1`, how a dual-stack socket shows an IPv4 client) as the IPv4 address it is.
 * Anything else (no address) is counted as it comes.
 */
export function addressKey(address: string): string {
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = groupsOf(address);
  if (!groups) return address;
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${groups.slice(0, 4).map(hex).join(':')}::/64`;
}
