/**
 * Per-process CPU time and memory from Linux /proc. The server under test is a separate process
 * so its CPU can be told apart from the load generator's, which shares the same two cores.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let clockTicks: number | undefined;

/** Kernel clock ticks per second (`getconf CLK_TCK`); 100 on practically every Linux. */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5000 }).trim());
      clockTicks = Number.isInteger(n) && n > 0 ? n : 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of a process, in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces and parentheses; fields are counted after its last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state), so utime (field 14) is rest[11] and stime (field 15) rest[12].
  const ticks = Number(rest[11]) + Number(rest[12]);
  return (ticks * 1000) / clockTicksPerSecond();
}

export interface Memory {
  /** Resident set size now, MB. */
  rssMb: number;
  /** Peak resident set size since the process started (VmHWM), MB. */
  peakRssMb: number;
}

export function memory(pid: number): Memory {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) : Number.NaN;
  };
  return { rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

export function cpuModel(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    return m?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export interface SystemCpu {
  /** CPU time all processes spent busy (user, nice, system, irq, softirq), ms summed over cores. */
  busyMs: number;
  /** Time the hypervisor ran something else while this VM wanted the CPU, ms. */
  stealMs: number;
}

export function systemCpu(): SystemCpu {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  const toMs = (ticks: number) => (ticks * 1000) / clockTicksPerSecond();
  return { busyMs: toMs(user + nice + system + irq + softirq), stealMs: toMs(steal) };
}

/** CPU time of this process (the load generator), ms. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
