// How the decoder process is confined by the kernel (issue 17), below Node's permission model,
// which binds only JavaScript: FFmpeg's C code, where an exploit would run, is held by this.
//
// - its own network namespace: no interface but a loopback that is down, so nothing is reachable;
// - its own mount namespace whose root is a fresh, read-only tmpfs holding only what it needs, each
//   bind-mounted read-only (nosuid, nodev) at its own path: the Node binary, the decoder's code, the
//   decoder package, the one input file, and the directories of the shared libraries those load.
//   The old root is detached (pivot_root + lazy umount), so DATA_DIR, the ledger, the signing key and
//   other videos do not exist from its point of view. No /proc, no /dev, no /tmp;
// - no new privileges and no capabilities (setpriv: no_new_privs, empty bounding and inheritable
//   sets), so it cannot mount, pivot or chroot its way back, nor gain anything by exec;
// - a user namespace when it can have one (unprivileged, or as root too): the process is "root"
//   only inside it, mapped to the service's own user.
// Candidates are tried once, in order, with a real process (detectConfinement); the first that
// works is used and logged at start (`decoder isolation`). Where none works (no unshare, user
// namespaces disabled) it degrades to a network namespace only, then to nothing, and says so.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type Confinement = {
  /** The command that enters the namespaces (unshare ...), empty for none. */
  prefix: string[];
  /** Own network namespace. */
  net: boolean;
  /** Own mount namespace with a minimal read-only root (and no capabilities, no new privileges). */
  mount: boolean;
  /** Inside a user namespace (the process's root maps to the service's user). */
  user: boolean;
  /** For the log: what the decoder got. */
  describe: string;
};

/**
 * Run by `sh` as the namespaces' root, before the decoder: builds the root in a tmpfs mounted on
 * $1 (an empty directory; the mount exists only in this namespace), bind-mounts each path after
 * $3 read-only, pivots into it, detaches the old root, then execs setpriv ($2, mounted in the new
 * root too) which drops every capability and sets no_new_privs before it execs the decoder.
 * Arguments: ROOT SETPRIV PATH... -- COMMAND ARGS...
 * Each process it starts costs a few ms of CPU per video, so it starts few (`${'$'}` below is a
 * literal `$` in this template).
 */
const SETUP = String.raw`set -eu
PATH=/usr/sbin:/usr/bin:/sbin:/bin
R="$1"; SETPRIV="$2"; shift 2
mount -t tmpfs -o size=1m,mode=0755,nosuid,nodev tmpfs "$R"
# Top-level symlinks as on this machine (merged /usr: /lib -> usr/lib), so library paths resolve.
# Copied as links by one cp.
L=""
for l in /lib /lib32 /lib64 /libx32 /bin /sbin; do
  if [ -L "$l" ]; then L="$L $l"; fi
done
if [ -n "$L" ]; then cp -P $L "$R/"; fi
# ro SOURCE [TARGET]: SOURCE visible read-only at TARGET (default: its own path) in the new root.
ro() {
  if [ $# -ge 2 ]; then T="$2"; else T="$1"; fi
  # A file's directory by the shell's own suffix removal, not a dirname process.
  if [ -d "$1" ]; then mkdir -p "$R$T"; else mkdir -p "$R${'$'}{T%/*}"; : > "$R$T"; fi
  # Bound and made read-only by one mount (util-linux >= 2.27 remounts with the options itself).
  # A flag the source mount has locked (noexec, say) must be kept: that remount fails, leaving the
  # bind mount in place, and is retried with the flag. A bind that failed leaves no mount there,
  # so the retry fails too (remounting needs a mount point) and the set-up stops.
  mount --bind -o ro,nosuid,nodev "$1" "$R$T" 2>/dev/null || mount -o remount,bind,ro,nosuid,nodev,noexec "$R$T"
}
# Each PATH at its own path, or "--as SOURCE TARGET" for a file shown under another name (the
# input, so that no directory of DATA_DIR's path exists inside).
while [ "$1" != "--" ]; do
  if [ "$1" = "--as" ]; then ro "$2" "$3"; shift 3; continue; fi
  if [ -e "$1" ] && [ ! -e "$R$1" ]; then ro "$1"; fi
  shift
done
shift
ro "$SETPRIV"
M="$(command -v mount)"; U="$(command -v umount)"
ro "$U"
# umount finds mounts in /proc/self/mountinfo: the namespace's /proc is lent for the two unmounts.
mkdir "$R/proc" "$R/.old"
mount --rbind /proc "$R/proc"
cd "$R"
pivot_root . .old
cd /
"/.old$M" -o remount,bind,ro,nosuid,nodev /
"$U" -l /.old
"$U" -l /proc
# The decoder starts with an empty environment, as it was spawned: nothing the shell set.
unset PATH PWD OLDPWD SHLVL _ || true
exec "$SETPRIV" --no-new-privs --inh-caps=-all --bounding-set=-all -- "$@"
`;

let rootDir: string | undefined;
/** One empty directory per process to mount each sandbox's tmpfs on (each in its own namespace). */
function mountPoint(): string {
  if (rootDir && existsSync(rootDir)) return rootDir;
  rootDir = mkdtempSync(join(tmpdir(), 'rc-decoder-root-'));
  const dir = rootDir;
  process.once('exit', () => {
    try {
      rmdirSync(dir);
    } catch {
      // in use by a sandbox still running, or gone already
    }
  });
  return dir;
}

const which = (name: string): string | undefined => {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) if (existsSync(join(dir, name))) return join(dir, name);
  return undefined;
};

/** Each binary's library directories (ldd), found once per process or handed over (adoptConfinement). */
const libsOfFile = new Map<string, string[]>();

/** The library directories in `ldd FILE`'s output (empty when it failed). */
function lddDirs(stdout: string | undefined): string[] {
  const dirs: string[] = [];
  for (const m of stdout ? stdout.matchAll(/(\/\S+)\s+\(0x/g) : []) {
    const lib = m[1]!;
    try {
      dirs.push(realpathSync(dirname(lib)), dirname(realpathSync(lib)));
    } catch {
      // listed but absent: the loader would fail the same way outside
    }
  }
  return dirs;
}

/** Directories holding the shared libraries `files` load (ldd), as real paths and as named. */
export function libraryDirs(files: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const file of files) {
    let own = libsOfFile.get(file);
    if (!own) {
      const r = spawnSync('ldd', [file], { encoding: 'utf8', timeout: 10_000 });
      libsOfFile.set(file, (own = lddDirs(r.status === 0 ? r.stdout : undefined)));
    }
    for (const d of own) dirs.add(d);
  }
  return [...dirs].sort();
}

/**
 * The same ldd runs, at once and without blocking: the detection does these first, so that the API
 * process, which detects at its start, does not wait on four ldd processes one after the other.
 */
async function findLibraryDirs(files: readonly string[]): Promise<void> {
  await Promise.all(files.filter((f) => !libsOfFile.has(f)).map((file) => new Promise<void>((resolve) => {
    execFile('ldd', [file], { encoding: 'utf8', timeout: 10_000 }, (err, stdout) => {
      if (!libsOfFile.has(file)) libsOfFile.set(file, lddDirs(err ? undefined : stdout));
      resolve();
    });
  })));
}

/** The binaries every sandbox runs (Node, setpriv, mount, umount), whose libraries it must hold. */
const sandboxTools = () => [process.execPath, which('setpriv')!, which('mount')!, which('umount')!];

/**
 * The argv that runs `argv` confined, with `readOnly` (files or directories) visible at their own
 * paths. `nativeDeps` are binaries whose libraries must be there too (Node is always included).
 */
/** Where the one input appears inside the root (its own path would make DATA_DIR's directories exist there). */
export const INSIDE_INPUT = '/input/video';

export function confinedArgv(c: Confinement, readOnly: readonly string[], argv: readonly string[], nativeDeps: readonly string[] = []): string[] {
  if (!c.mount) return [...c.prefix, ...argv];
  const libraries = libraryDirs([...sandboxTools(), ...nativeDeps]);
  return [...c.prefix, '/bin/sh', '-c', SETUP, 'decoder-sandbox', mountPoint(), which('setpriv')!, ...libraries, process.execPath, ...readOnly, '--', ...argv];
}

function candidates(): Confinement[] {
  const root = process.getuid?.() === 0;
  const tools = ['unshare', 'setpriv', 'mount', 'umount', 'pivot_root'].every((t) => which(t));
  const userns = ['unshare', '--user', '--map-root-user'];
  const list: Confinement[] = [];
  if (tools) {
    list.push({ prefix: [...userns, '--mount', '--net'], net: true, mount: true, user: true, describe: 'user, mount and network namespaces; minimal read-only root; no capabilities, no new privileges' });
    if (root) list.push({ prefix: ['unshare', '--mount', '--net'], net: true, mount: true, user: false, describe: 'mount and network namespaces (as root, no user namespace); minimal read-only root; no capabilities, no new privileges' });
  }
  list.push({ prefix: [...userns, '--net'], net: true, mount: false, user: true, describe: 'network namespace only (no mount confinement: the decoder sees the whole file system)' });
  if (root) list.push({ prefix: ['unshare', '--net'], net: true, mount: false, user: false, describe: 'network namespace only (no mount confinement: the decoder sees the whole file system)' });
  return list;
}

const NONE: Confinement = { prefix: [], net: false, mount: false, user: false, describe: 'none (no namespaces available): only Node\'s permission model and the limits' };

let found: Confinement | undefined;
let detecting: Promise<Confinement> | undefined;

/** Runs `node -e 0` under a candidate, as the decoder would run. */
function tryArgv(c: Confinement): string[] {
  return confinedArgv(c, [], [process.execPath, '-e', '0']);
}

/** Found once per process, without blocking the event loop (the API process probes videos too). */
export function detectConfinement(): Promise<Confinement> {
  if (found) return Promise.resolve(found);
  detecting ??= (async () => {
    const list = candidates();
    if (list.some((c) => c.mount)) await findLibraryDirs(sandboxTools());
    for (const c of list) {
      const [cmd, ...args] = tryArgv(c);
      const ok = await new Promise<boolean>((resolve) => {
        const child = spawn(cmd!, args, { stdio: 'ignore', env: {} });
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('error', () => { clearTimeout(timer); resolve(false); });
        child.once('close', (code) => { clearTimeout(timer); resolve(code === 0); });
      });
      if (ok) return (found = c);
    }
    return (found = NONE);
  })();
  return detecting;
}

/**
 * What this process found, for its engine processes (runner/engine-host.ts): the detection starts
 * a trial sandbox and runs ldd four times, ~0.17 s of CPU and ~0.7 s of wall time, which each
 * engine process paid again at its start, inside the first seconds of a freshly started service
 * (issue 22). The machine, the user and the binaries are the same for them.
 */
export type FoundConfinement = { confinement: Confinement; libraries: [string, string[]][] };

export const foundConfinement = async (): Promise<FoundConfinement> => ({ confinement: await detectConfinement(), libraries: [...libsOfFile] });

/** Takes the host's findings, unless this process has started its own detection (it then keeps those). */
export function adoptConfinement(f: FoundConfinement): void {
  if (found || detecting) return;
  found = f.confinement;
  for (const [file, dirs] of f.libraries) if (!libsOfFile.has(file)) libsOfFile.set(file, dirs);
}

/** The same, blocking: for benches and tests, or when nothing awaited the detection. */
export function confinement(): Confinement {
  if (found) return found;
  for (const c of candidates()) {
    const [cmd, ...args] = tryArgv(c);
    const r = spawnSync(cmd!, args, { stdio: 'ignore', timeout: 10_000, env: {} });
    if (r.status === 0) return (found = c);
  }
  return (found = NONE);
}
