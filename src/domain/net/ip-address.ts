// Private, loopback, link-local, metadata and otherwise reserved address ranges
// (spec Errors: unsafe custom hosts). Pure, so workers on any runtime share it.

type Cidr = [bigint, number];

function parseIPv4(s: string): bigint | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseIPv6(input: string): bigint | null {
  let s = input.replace(/^\[|\]$/g, '').split('%')[0]!;
  // Embedded IPv4 tail (::ffff:1.2.3.4)
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const n = parseIPv4(v4[1]!);
    if (n === null) return null;
    s = s.slice(0, -v4[1]!.length) + ((n >> 16n) & 0xffffn).toString(16) + ':' + (n & 0xffffn).toString(16);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let v = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  return v;
}

const v4 = (cidr: string): Cidr => {
  const [a, len] = cidr.split('/');
  return [parseIPv4(a!)!, Number(len)];
};
const v6 = (cidr: string): Cidr => {
  const [a, len] = cidr.split('/');
  return [parseIPv6(a!)!, Number(len)];
};

const BLOCKED_V4: Cidr[] = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
  '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
].map(v4);

const BLOCKED_V6: Cidr[] = [
  '::/128', '::1/128', '100::/64', '2001:db8::/32', 'fc00::/7', 'fe80::/10', 'ff00::/8', 'fec0::/10',
].map(v6);

const inCidr = (addr: bigint, [net, len]: Cidr, bits: number): boolean => {
  const shift = BigInt(bits - len);
  return addr >> shift === net >> shift;
};

export type IpVersion = 4 | 6;

export function ipVersion(host: string): IpVersion | null {
  if (parseIPv4(host) !== null) return 4;
  if (host.includes(':') && parseIPv6(host) !== null) return 6;
  return null;
}

/** True for any address a gateway must not be tricked into calling. */
export function isBlockedAddress(host: string): boolean {
  const a4 = parseIPv4(host);
  if (a4 !== null) return BLOCKED_V4.some((c) => inCidr(a4, c, 32));
  const a6 = parseIPv6(host);
  if (a6 === null) return false;
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64 (64:ff9b::/96) carry an IPv4 address.
  const low32 = a6 & 0xffffffffn;
  const high96 = a6 >> 32n;
  if (high96 === 0xffffn || high96 === 0n || high96 === BigInt('0x0064ff9b0000000000000000')) {
    if (high96 === 0n && a6 <= 1n) return true; // :: and ::1
    return BLOCKED_V4.some((c) => inCidr(low32, c, 32));
  }
  return BLOCKED_V6.some((c) => inCidr(a6, c, 128));
}

/** Host names that always mean "this machine" or a cloud metadata service. */
export function isBlockedHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return (
    h === 'localhost' || h.endsWith('.localhost') ||
    h === 'metadata' || h === 'metadata.google.internal' || h.endsWith('.metadata.google.internal') ||
    h === 'instance-data' || h === 'metadata.azure.com'
  );
}
