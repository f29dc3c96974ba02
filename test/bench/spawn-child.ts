// The parent side of the bench's process protocol (see child-protocol.ts): spawns a TypeScript
// child with tsx's loader, waits for its ready line, sends commands, and stops it within a bound.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child<Ready> {
  name: string;
  pid: number;
  ready: Ready;
  call<T>(cmd: string, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
// Last resort: whatever is still running when the bench process exits is killed by its pid.
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

export async function spawnChild<Ready>(name: string, file: string, opts: { env?: Record<string, string>; nodeArgs?: string[]; readyTimeoutMs?: number } = {}): Promise<Child<Ready>> {
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  live.add(proc);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  void exited.then(() => live.delete(proc));

  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  let onReady: ((r: Ready) => void) | null = null;
  const lines = createInterface({ input: proc.stdout! });
  lines.on('line', (line) => {
    let msg: { type?: string; id?: number; ok?: boolean; result?: unknown; error?: string };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      process.stderr.write(`[${name}] ${line}\n`);
      return;
    }
    if (msg.type === 'ready') return onReady?.(msg as Ready);
    const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
    if (!p) return void process.stderr.write(`[${name}] ${line}\n`);
    pending.delete(msg.id!);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new Error(`${name}: ${msg.error}`));
  });
  void exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`${name} exited (code ${proc.exitCode}, signal ${proc.signalCode})`));
    pending.clear();
  });

  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.stdin!.end();
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };

  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready within ${opts.readyTimeoutMs ?? 60_000} ms`)), opts.readyTimeoutMs ?? 60_000);
    onReady = (r) => {
      clearTimeout(timer);
      resolve(r);
    };
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${proc.exitCode})`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });

  return {
    name,
    pid: proc.pid!,
    ready,
    stop,
    call<T>(cmd: string, timeoutMs = 30_000) {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${name}: ${cmd} got no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (v) => (clearTimeout(timer), resolve(v as T)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        proc.stdin!.write(`${JSON.stringify({ id, cmd })}\n`);
      });
    },
  };
}
