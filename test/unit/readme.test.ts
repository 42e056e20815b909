/**
 * README.md is a newcomer's first page and nothing else checks it: these are its claims a machine
 * can check cheaply. Every relative link resolves to a file (and its `#anchor` to a heading or an
 * id there), every `consulta <command> <subcommand>` and `--flag` it names is in the CLI's help,
 * its configuration table and the settings src/config.ts reads are the same set, and the counts
 * it states (MCP tools, demo lawyers) are the product's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { HELP } from '../../src/cli/main.ts';
import { loadConfig } from '../../src/config.ts';
import { toolDefinitions, type ToolDeps } from '../../src/mcp/tools.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = heading[1]!
        .toLowerCase()
        .replace(/<[^>]*>/g, '')
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

/** Markdown links outside code: `[text](target)`. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

function inlineCode(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const spans = [...markdown.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  return [...blocks, ...spans];
}

/** The commands of the CLI's help and, per command, the subcommands it names (`a|b|c` split). */
function helpCommands(): Map<string, Set<string>> {
  const commands = new Map<string, Set<string>>();
  for (const m of HELP.matchAll(/^ {2}([a-z]+)\b/gm)) commands.set(m[1]!, new Set());
  for (const [command, subs] of commands) {
    for (const m of HELP.matchAll(new RegExp(`(?:^|[ |(])${command} ([a-z-]+(?:\\|[a-z-]+)*)`, 'gm'))) {
      for (const sub of m[1]!.split('|')) subs.add(sub);
    }
  }
  return commands;
}

describe('README.md', () => {
  it('links only to files and anchors that exist', () => {
    const targets = links(README).filter((t) => !/^[a-z]+:/i.test(t));
    assert.ok(targets.length >= 20, `found ${targets.length} relative links; the parser missed them`);
    const broken: string[] = [];
    for (const target of targets) {
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const full = path.join(ROOT, decodeURIComponent(file || 'README.md'));
      if (!fs.existsSync(full)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor === undefined || fs.statSync(full).isDirectory()) continue;
      if (!anchorsOf(fs.readFileSync(full, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${target}: no such heading`);
    }
    assert.deepEqual(broken, []);
  });

  it('names only commands, subcommands and flags the CLI has', () => {
    const commands = helpCommands();
    const named: string[] = [];
    const wrong: string[] = [];
    const check = (command: string, rest: string) => {
      const subs = commands.get(command);
      if (!subs) return void wrong.push(`consulta ${command}: not a command`);
      named.push(command);
      const sub = /^([a-z][a-z-]*)\b/.exec(rest)?.[1];
      if (sub && subs.size > 0 && !subs.has(sub)) wrong.push(`consulta ${command} ${sub}: not a subcommand`);
      for (const flag of rest.matchAll(/--([a-z][a-z-]*)/g)) {
        if (flag[1] !== 'json' && !HELP.includes(`--${flag[1]}`)) wrong.push(`consulta ${command} … --${flag[1]}: not in the help`);
      }
    };
    for (const code of inlineCode(README)) {
      for (const line of code.split('\n')) {
        // The command as typed: at the start of a line or span, after `npx ` or a quote.
        for (const m of line.matchAll(/(?:^|npx |\$ |`)consulta ([a-z]+)((?: [^`|;&)]*)?)/g)) check(m[1]!, m[2]!.trim());
      }
    }
    // The command table: its first cell names the command and its subcommands (`a\|b`).
    const table = README.slice(README.indexOf('| command | what it does |'));
    for (const row of table.split('\n').slice(2)) {
      if (!row.startsWith('|')) break;
      const cell = row.split(/(?<!\\)\|/)[1]!;
      for (const m of cell.matchAll(/`([a-z]+)((?: [^`]*)?)`/g)) {
        for (const alternative of m[2]!.trim().split('\\|')) check(m[1]!, alternative.trim());
      }
    }
    assert.ok(named.length >= 25, `found ${named.length} commands; the parser missed them`);
    assert.deepEqual(wrong, []);
  });

  it('documents exactly the settings src/config.ts reads', () => {
    const config = fs.readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
    const read = new Set(
      [...config.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'|\bread\('([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1] ?? m[2] ?? m[3]!),
    );
    const section = README.slice(README.indexOf('## Configuration'), README.indexOf('## Command line'));
    const documented = new Set(
      section
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)),
    );
    assert.ok(read.size >= 50, `found ${read.size} settings in src/config.ts; the parser missed them`);
    assert.deepEqual([...read].filter((v) => !documented.has(v)).sort(), [], 'read by src/config.ts, missing from the README');
    assert.deepEqual([...documented].filter((v) => !read.has(v)).sort(), [], 'in the README, not read by src/config.ts');
  });

  it('states the number of MCP tools and of demo lawyers the product has', () => {
    // Building the definitions calls no service: their handlers close over the deps.
    const tools = toolDefinitions({ config: { siteUrl: 'http://localhost', mcpUrl: 'http://localhost/mcp' } } as unknown as ToolDeps);
    assert.ok(new RegExp(`\\b${tools.length} tools\\b`).test(README), `the MCP server has ${tools.length} tools`);
    assert.equal(README.match(/\b\d+ tools\b/g)?.length, 1, 'one place states the count');
    const demo = loadConfig({}).demoLawyers;
    assert.ok(new RegExp(`npm start .*\\b${demo} demo lawyers`).test(README), `npm start seeds ${demo}`);
    assert.ok(new RegExp(`\\| \`DEMO_LAWYERS\` \\| \`${demo}\` \\|`).test(README), `DEMO_LAWYERS defaults to ${demo}`);
  });
});
