/**
 * Summarises a V8 .cpuprofile (written by `node --cpu-prof`) into where the busy time went:
 * self time by code area (a package, a file of src/, Node internals, GC) and the functions with
 * the most self and inclusive time. Idle time is left out of the shares.
 */
import fs from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  byArea: Share[];
  topSelf: Share[];
  topInclusive: Share[];
}

/** Which part of the code a frame belongs to: an npm package, a file of ours, Node, or V8. */
function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8: garbage collector';
    if (functionName === '(program)') return 'V8/native: (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm: ${pkg[1]}`;
  const own = /\/(src|bin|bench)\/(.+)$/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (url.startsWith('node:')) {
    const mod = url.replace(/^node:(internal\/)?/, '').split('/')[0];
    return `node: ${mod}`;
  }
  return url;
}

function label(frame: CallFrame): string {
  // Code loaded through tsx reports line 0 (one transpiled line); a line number would mislead.
  const line = frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'} ${area(frame)}${line}`;
}

function top(map: Map<string, number>, busyMs: number, n: number): Share[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => ({ name, ms: Math.round(ms), share: busyMs ? ms / busyMs : 0 }));
}

/**
 * `windowUs` keeps only the samples taken in that window of the monotonic clock (the measured
 * run), leaving out start-up, module loading and warm-up.
 */
export function summarizeProfile(file: string, n = 20, windowUs?: [number, number]): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const selfById = new Map<number, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (windowUs && (t < windowUs[0] || t > windowUs[1])) continue;
    const id = profile.samples[i]!;
    selfById.set(id, (selfById.get(id) ?? 0) + delta / 1000);
  }

  let idleMs = 0;
  let busyMs = 0;
  const byArea = new Map<string, number>();
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of selfById) {
    const node = byId.get(id);
    if (!node) continue;
    if (node.callFrame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const a = area(node.callFrame);
    byArea.set(a, (byArea.get(a) ?? 0) + ms);
    const l = label(node.callFrame);
    self.set(l, (self.get(l) ?? 0) + ms);
    // Count each function once per stack, so recursion does not inflate its inclusive time.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)?.callFrame;
      if (!frame || frame.functionName === '(root)') continue;
      const key = label(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
    }
  }
  return {
    busyMs: Math.round(busyMs),
    idleMs: Math.round(idleMs),
    byArea: top(byArea, busyMs, n),
    topSelf: top(self, busyMs, n),
    topInclusive: top(inclusive, busyMs, n),
  };
}

export function renderProfile(title: string, s: ProfileSummary, n = 12): string {
  const pct = (x: number) => `${(x * 100).toFixed(1).padStart(5)} %`;
  const list = (heading: string, rows: Share[]) => [`  ${heading}`, ...rows.slice(0, n).map((r) => `    ${pct(r.share)}  ${r.name}`)].join('\n');
  return [
    `${title}: ${s.busyMs} ms busy, ${s.idleMs} ms idle`,
    list('self time by area', s.byArea),
    list('self time by function', s.topSelf),
    list('inclusive time by function', s.topInclusive),
  ].join('\n');
}
