// A container image made here without a registry: a root file system of this machine's own
// programs (sh, node, npm, a few coreutils and the libraries they load) imported with
// `podman import`, and a Podman configuration private to the test (its own storage under a temp
// directory, vfs, so it needs neither overlayfs nor a daemon). Where Podman cannot run a
// container (no podman, no runtime, no namespaces) the reason is given and the tests skip.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface TestPodman {
  /** Variables pointing podman at the test's configuration and storage. */
  readonly env: Record<string, string>;
  /** The image's name. */
  readonly image: string;
  /** What the image's /etc/attractor-image holds. */
  readonly marker: string;
  destroy(): void;
}

const PROGRAMS = ["sh", "bash", "node", "env", "cat", "mkdir", "sed", "sort", "sleep", "ls", "rm"];

const which = (name: string): string | undefined => {
  try {
    const path = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
    return path.startsWith("/") ? path : undefined;
  } catch {
    return undefined;
  }
};

/** Copies `file` (its real path, and a link at `file` when that differs) into `rootfs`. */
function copyIn(rootfs: string, file: string): void {
  const real = realpathSync(file);
  mkdirSync(dirname(join(rootfs, real)), { recursive: true });
  if (!existsSync(join(rootfs, real))) cpSync(real, join(rootfs, real));
  if (real !== file && !existsSync(join(rootfs, file))) {
    mkdirSync(dirname(join(rootfs, file)), { recursive: true });
    symlinkSync(real, join(rootfs, file));
  }
}

/** The shared libraries `program` loads, by ldd. */
function libraries(program: string): string[] {
  const out = execFileSync("ldd", [program], { encoding: "utf8" });
  return [...out.matchAll(/(\/\S+)/g)].map((m) => m[1] as string);
}

/** Builds the image and the configuration, or says why Podman cannot run containers here. */
export function startTestPodman(): TestPodman | { readonly unavailable: string } {
  if (which("podman") === undefined)
    return { unavailable: "podman is not installed (Debian package podman)" };
  const root = mkdtempSync(join(tmpdir(), "attractor-podman-"));
  // runc where present: crun refuses the hybrid cgroup layouts some CI containers have.
  const runc = which("runc");
  writeFileSync(
    join(root, "containers.conf"),
    [
      "[containers]",
      // A container may not raise its limits above the (often lowered) ones of the test's host.
      'default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]',
      "[engine]",
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      ...(runc !== undefined ? ['runtime = "runc"'] : []),
    ].join("\n"),
  );
  writeFileSync(
    join(root, "storage.conf"),
    [
      "[storage]",
      'driver = "vfs"',
      `runroot = "${join(root, "run")}"`,
      `graphroot = "${join(root, "graph")}"`,
    ].join("\n"),
  );
  const env = {
    ...(process.env as Record<string, string>),
    CONTAINERS_CONF: join(root, "containers.conf"),
    CONTAINERS_STORAGE_CONF: join(root, "storage.conf"),
  };
  const destroy = () => {
    try {
      execFileSync("podman", ["rm", "-a", "-f", "-t", "0"], { env, stdio: "ignore" });
    } catch {
      // Nothing to remove.
    }
    // vfs layers may hold read-only directories: podman removes its images itself (from this
    // private storage only; `system reset` would also touch the machine's networks).
    try {
      execFileSync("podman", ["rmi", "-a", "-f"], { env, stdio: "ignore" });
    } catch {
      // Removed below.
    }
    rmSync(root, { recursive: true, force: true });
  };
  const rootfs = join(root, "rootfs");
  mkdirSync(rootfs);
  // The host's merged-/usr links (/bin → usr/bin, …), so programs are where their paths say.
  for (const top of ["bin", "sbin", "lib", "lib64"])
    if (existsSync(`/${top}`) && lstatSync(`/${top}`).isSymbolicLink()) {
      const target = readlinkSync(`/${top}`);
      mkdirSync(join(rootfs, target.startsWith("/") ? target : join("/", target)), { recursive: true });
      symlinkSync(target, join(rootfs, top));
    }
  for (const name of PROGRAMS) {
    const program = which(name);
    if (program === undefined) continue;
    copyIn(rootfs, program);
    for (const library of libraries(realpathSync(program)).filter((l) => existsSync(l)))
      copyIn(rootfs, library);
  }
  const npm = realpathSync(which("npm") ?? "/usr/bin/npm");
  const npmRoot = dirname(dirname(npm));
  cpSync(npmRoot, join(rootfs, npmRoot), { recursive: true });
  mkdirSync(join(rootfs, "usr/bin"), { recursive: true });
  if (!existsSync(join(rootfs, "usr/bin/npm"))) symlinkSync(npm, join(rootfs, "usr/bin/npm"));
  for (const dir of ["root", "etc"]) mkdirSync(join(rootfs, dir), { recursive: true });
  mkdirSync(join(rootfs, "tmp"));
  chmodSync(join(rootfs, "tmp"), 0o1777);
  writeFileSync(join(rootfs, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
  const marker = `attractor test image ${process.pid}`;
  writeFileSync(join(rootfs, "etc/attractor-image"), `${marker}\n`);
  const image = "localhost/attractor-fleet-test:1";
  // Only what podman does can make it unavailable; a mistake above fails the tests.
  try {
    execFileSync("sh", ["-c", `tar -C "${rootfs}" -c . | podman import - ${image}`], {
      env,
      stdio: "pipe",
    });
    rmSync(rootfs, { recursive: true, force: true });
    execFileSync("podman", ["run", "--rm", "--network", "none", image, "/bin/sh", "-c", ":"], {
      env,
      stdio: "pipe",
    });
    return { env, image, marker, destroy };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    destroy();
    return { unavailable: `podman cannot run a container here: ${stderr || (error as Error).message}` };
  }
}
