// A package registry on 127.0.0.1 that npm installs from: one packument per package and its
// tarball, both made here (tar, node's crypto), so a test installs real dependencies without the
// network. It counts what it served, to show which side (setup or agent) reached it.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface NpmRegistry {
  /** The registry's URL, for `npm_config_registry`. */
  readonly url: string;
  /** The requests it answered, by path. */
  readonly served: readonly string[];
  close(): Promise<void>;
}

/** A package to serve: its name, version and files (paths inside the package). */
export interface RegistryPackage {
  readonly name: string;
  readonly version: string;
  readonly files: Readonly<Record<string, string>>;
}

/** Packs `pkg` as npm does (a gzipped tar of `package/…`) and returns the tarball's bytes. */
async function pack(pkg: RegistryPackage): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "attractor-npm-pack-"));
  try {
    const files = { "package.json": JSON.stringify({ name: pkg.name, version: pkg.version }), ...pkg.files };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, "package", path)), { recursive: true });
      await writeFile(join(dir, "package", path), text);
    }
    execFileSync("tar", ["-czf", "pkg.tgz", "package"], { cwd: dir });
    return await readFile(join(dir, "pkg.tgz"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Starts a registry serving `packages` (one version each). */
export async function startNpmRegistry(packages: readonly RegistryPackage[]): Promise<NpmRegistry> {
  const served: string[] = [];
  const tarballs = new Map<string, Buffer>();
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    served.push(path);
    const tarball = tarballs.get(path);
    if (tarball) {
      response.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
      return;
    }
    const packument = packuments.get(path.slice(1));
    if (packument) {
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(packument));
      return;
    }
    response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const packuments = new Map<string, unknown>();
  for (const pkg of packages) {
    const bytes = await pack(pkg);
    const file = `/${pkg.name}/-/${pkg.name.split("/").at(-1)}-${pkg.version}.tgz`;
    tarballs.set(file, bytes);
    packuments.set(pkg.name, {
      name: pkg.name,
      "dist-tags": { latest: pkg.version },
      versions: {
        [pkg.version]: {
          name: pkg.name,
          version: pkg.version,
          dist: {
            tarball: `${url.slice(0, -1)}${file}`,
            shasum: createHash("sha1").update(bytes).digest("hex"),
            integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
          },
        },
      },
    });
  }
  return {
    url,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
