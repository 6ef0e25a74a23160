// The machine, CPU pinning, and what /proc says about a process.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat utime and stime (getconf CLK_TCK, 100 on Linux). */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function parseCpuList(text) {
  const cores = [];
  for (const part of text.trim().split(',')) {
    const [from, to] = part.split('-').map(Number);
    for (let core = from; core <= (to ?? from); core += 1) cores.push(core);
  }
  return cores;
}

/**
 * Services on one core, the load generator on another, when the machine allows: taskset
 * present and at least two cores in this process's affinity mask.
 */
export function cpuPinning(disabled = false) {
  if (disabled) return { enabled: false, reason: 'disabled with --no-pin' };
  if (process.platform !== 'linux') return { enabled: false, reason: 'not Linux' };
  const taskset = spawnSync('taskset', ['-V'], { encoding: 'utf8' });
  if (taskset.error) return { enabled: false, reason: 'taskset not found (util-linux)' };
  const status = readFileSync('/proc/self/status', 'utf8');
  const allowed = parseCpuList(status.match(/^Cpus_allowed_list:\s*(.+)$/m)?.[1] ?? '0');
  if (allowed.length < 2) return { enabled: false, reason: `only ${allowed.length} core allowed` };
  return {
    enabled: true,
    serverCores: String(allowed[0]),
    loadCores: String(allowed[1]),
    reason: `services on core ${allowed[0]}, load generator on core ${allowed[1]}`,
  };
}

/** [command, args] running argv on the given cores (or unpinned). taskset execs: the pid is node's. */
export function pinned(cores, argv) {
  if (!cores) return [argv[0], argv.slice(1)];
  return ['taskset', ['-c', cores, ...argv]];
}

/** utime + stime of a process in seconds (its threads included, its children not). */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** Resident set size in bytes (VmRSS). */
export function rssBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(status.match(/^VmRSS:\s*(\d+)\s*kB/m)?.[1]) * 1024;
  } catch {
    return Number.NaN;
  }
}

export function machineDescription() {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  if (existsSync('/proc/cpuinfo')) {
    cpuModel = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? cpuModel;
  }
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpuModel,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
  };
}


/** Busy and total clock ticks of each core, from /proc/stat. */
export function coreTimes() {
  const cores = {};
  try {
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      const match = line.match(/^cpu(\d+)\s+(.+)$/);
      if (!match) continue;
      const [user, nice, system, idle, iowait, irq, softirq, steal] = match[2].split(' ').map(Number);
      const busy = user + nice + system + irq + softirq + steal;
      cores[match[1]] = { busy: busy / CLK_TCK, total: (busy + idle + iowait) / CLK_TCK };
    }
  } catch {
    // not Linux
  }
  return cores;
}

/** RSS of a process by kind of mapping, from /proc/<pid>/smaps. */
export function smapsBreakdown(pid) {
  const mappings = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = line.match(/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/);
    if (head) {
      const start = BigInt(`0x${head[1]}`);
      mappings.push({ start, sizeKb: Number((BigInt(`0x${head[2]}`) - start) / 1024n), perms: head[3], name: head[4], rssKb: 0 });
      continue;
    }
    const rss = line.match(/^Rss:\s+(\d+) kB/);
    if (rss && mappings.length) mappings[mappings.length - 1].rssKb = Number(rss[1]);
  }
  const kinds = {};
  mappings.forEach(({ start, sizeKb, perms, name, rssKb }, i) => {
    const next = mappings[i + 1];
    let kind;
    if (name.endsWith('/node')) kind = 'node binary';
    else if (name.startsWith('/')) kind = 'shared libraries, addons, files';
    else if (name === '[heap]') kind = 'malloc main heap';
    else if (name) kind = name;
    // A wasm linear memory: one read-write reservation of 1 GB or more (Prisma's query
    // compiler), or a committed part followed by a guard reservation of several GB (PGlite).
    else if (perms.startsWith('rw') && sizeKb >= 2 ** 20) kind = 'wasm linear memory';
    else if (perms.startsWith('rw') && next && next.perms === '---p' && next.sizeKb >= 2 ** 20 && !next.name) kind = 'wasm linear memory';
    // glibc's per-thread malloc arenas: 64 MB-aligned, at most 64 MB.
    else if (perms.startsWith('rw') && start % 0x4000000n === 0n && sizeKb <= 65_536) kind = 'malloc arenas of threads';
    else if (perms.includes('x')) kind = 'JIT code';
    else kind = 'other anonymous (V8 heap, wasm code, buffers)';
    if (rssKb) kinds[kind] = (kinds[kind] ?? 0) + rssKb * 1024;
  });
  return kinds;
}
