/** Runs the real `consulta` command as a child process, for CLI end-to-end tests. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/consulta.js', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `consulta …args` with exactly `env` (the caller decides what of process.env to pass on); killed after 30 s. */
export function runConsulta(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`consulta ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one JSON line a --json command printed, after checking the exit code. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function jsonLine(r: RunResult, code = 0): Record<string, any> {
  assert.equal(r.code, code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  const text = r.stdout.trim();
  assert.ok(text.startsWith('{') && !text.includes('\n'), `expected one JSON line, got: ${r.stdout}`);
  return JSON.parse(text);
}
