import type { Logger } from '../domain/logger.ts';

/** Stops cleanly on SIGINT/SIGTERM: in-flight usage is drained before exit. */
export function onShutdown(logger: Logger, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('shutdown failed', { err: String(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

export function exitOnConfigError(err: unknown): never {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
