// Spawns the project's entry points as real processes and waits on their output (no sleeps).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** SIGKILL for the whole process group (tsx runs the entry in a node child of its own). */
  kill(): Promise<number | null>;
  /** Resolves with the output once `pattern` appears; rejects if the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

export function runEntry(file: string, env: Record<string, string>): RunningProcess {
  // Its own process group, so a signal reaches tsx and the node process it starts alike.
  const child = spawn(TSX, [file], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* already gone */
    }
  };
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
    for (const l of listeners) l();
  });
  return {
    child,
    output: () => out,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) return finish(() => resolve(m));
          if (done) return finish(() => reject(new Error(`process exited before ${pattern}:\n${out}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${pattern}:\n${out}`))), timeoutMs);
        const finish = (f: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      });
    },
    async kill() {
      if (!done) signalGroup('SIGKILL');
      return exited;
    },
    async stop() {
      if (!done) {
        child.kill('SIGTERM'); // tsx relays it to the entry, which shuts down cleanly
        const t = setTimeout(() => signalGroup('SIGKILL'), 10_000);
        const code = await exited;
        clearTimeout(t);
        return code;
      }
      return exited;
    },
  };
}
