// The child side of the bench's process protocol: one JSON line on stdout when ready, JSON-line
// commands on stdin ({id, cmd} -> {id, ok, result | error}; `cpu` is always there), and a bounded
// graceful shutdown on SIGTERM/SIGINT or when the parent goes away (stdin closes).
import { createInterface } from 'node:readline';

type Handlers = Record<string, () => Promise<unknown>>;

/** Built-in command `cpu`: this process's user + system CPU time so far, in microseconds. */
const cpuMicros = async () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const send = (msg: unknown) => process.stdout.write(`${JSON.stringify(msg)}\n`);

export function announce(ready: Record<string, unknown>): void {
  send({ type: 'ready', ...ready });
}

export function serve(handlers: Handlers, close: () => Promise<void>, closeTimeoutMs = 15_000): void {
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(1), closeTimeoutMs);
    force.unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`[bench child] close failed: ${String(err)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let msg: { id?: number; cmd?: string };
    try {
      msg = JSON.parse(line) as { id?: number; cmd?: string };
    } catch {
      return;
    }
    const handler = msg.cmd === 'cpu' ? cpuMicros : msg.cmd ? handlers[msg.cmd] : undefined;
    if (!handler) return send({ id: msg.id, ok: false, error: `unknown command ${msg.cmd}` });
    handler().then(
      (result) => send({ id: msg.id, ok: true, result }),
      (err: unknown) => send({ id: msg.id, ok: false, error: String(err) }),
    );
  });
  lines.on('close', shutdown);
}

/** Runs main(); any startup failure ends the child with a message on stderr. */
export function runChild(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(`[bench child] failed to start: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  });
}
