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

const lists = new Map<NonPublicKind, BlockList>();
for (const [kind, network, prefix, family] of ranges) {
  let list = lists.get(kind);
  if (!list) {
    list = new BlockList();
    lists.set(kind, list);
  }
  list.addSubnet(network, prefix, family);
}

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`), as the IPv4 address; else as given. */
function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? (m[1] as string) : address;
}

/**
 * What kind of non-public address `address` is (loopback, private, link-local, unspecified), or
 * undefined for a public one. IPv4-mapped IPv6 addresses are judged as their IPv4 address; a
 * string that is not an IP address is reported as "unspecified", so nothing unparsed passes.
 */
export function nonPublicKind(address: string): NonPublicKind | undefined {
  const plain = unmapped(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  const version = isIP(plain);
  if (version === 0) return "unspecified";
  const family = version === 4 ? "ipv4" : "ipv6";
  for (const [kind, list] of lists) if (list.check(plain, family)) return kind;
  return undefined;
}
