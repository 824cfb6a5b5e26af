import { BlockList, isIP } from "node:net";

/** Why an address is not on the public internet. */
export type NonPublicKind = "loopback" | "private" | "link-local" | "unspecified";

const ranges: readonly (readonly [NonPublicKind, string, number, "ipv4" | "ipv6"])[] = [
  ["loopback", "127.0.0.0", 8, "ipv4"],
  ["loopback", "::1", 128, "ipv6"],
  ["unspecified", "0.0.0.0", 8, "ipv4"],
  ["unspecified", "::", 128, "ipv6"],
  ["private", "10.0.0.0", 8, "ipv4"],
  ["private", "172.16.0.0", 12, "ipv4"],
  ["private", "192.168.0.0", 16, "ipv4"],
  // Carrier-grade NAT space reaches machines of the local network as much as 10/8 does.
  ["private", "100.64.0.0", 10, "ipv4"],
  ["private", "fc00::", 7, "ipv6"],
  ["link-local", "169.254.0.0", 16, "ipv4"],
  ["link-local", "fe80::", 10, "ipv6"],
];

let built: Map<NonPublicKind, BlockList> | undefined;
/** The ranges as block lists, built on first use: BlockList loads Node's socket-address code, which a run that fetches nothing never needs. */
function lists(): Map<NonPublicKind, BlockList> {
  if (built !== undefined) return built;
  built = new Map();
  for (const [kind, network, prefix, family] of ranges) {
    let list = built.get(kind);
    if (!list) {
      list = new BlockList();
      built.set(kind, list);
    }
    list.addSubnet(network, prefix, family);
  }
  return built;
}

/** The 16 bytes of an IPv6 address in any textual form (`::`, a trailing dotted quad). */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const words = (part: string) => (part === "" ? [] : part.split(":").map((w) => Number.parseInt(w, 16)));
  const front = words(head);
  const back = tail === undefined ? [] : words(tail);
  const all = [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((w) => [w >> 8, w & 0xff]);
}

/**
 * The IPv4 address an IPv6 address carries, where the prefix says it reaches that IPv4 host:
 * mapped (`::ffff:a.b.c.d`), translated (`::ffff:0:a.b.c.d`), compatible (`::a.b.c.d`), the
 * NAT64 well-known prefix (`64:ff9b::a.b.c.d`) and 6to4 (`2002:AABB:CCDD::`). Undefined otherwise.
 */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const last = (from: number) => b.slice(from, from + 4).join(".");
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return last(12);
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return last(12);
  // Compatible form; `::` and `::1` are IPv6 addresses of their own (0.x.x.x is no host).
  if (zeros(0, 12) && b[12] !== 0) return last(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return last(12);
  if (b[0] === 0x20 && b[1] === 0x02) return last(2);
  return undefined;
}

/**
 * What kind of non-public address `address` is (loopback, private, link-local, unspecified), or
 * undefined for a public one. IPv6 addresses that carry an IPv4 host (mapped, NAT64, 6to4…) are judged
 * as that IPv4 address; a
 * string that is not an IP address is reported as "unspecified", so nothing unparsed passes.
 */
export function nonPublicKind(address: string): NonPublicKind | undefined {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const version = isIP(bare);
  if (version === 0) return "unspecified";
  const plain = version === 6 ? (embeddedIpv4(bare) ?? bare) : bare;
  const family = isIP(plain) === 4 ? "ipv4" : "ipv6";
  for (const [kind, list] of lists()) if (list.check(plain, family)) return kind;
  return undefined;
}
