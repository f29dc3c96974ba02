// A replica's part of Watch: the change feed (LISTEN/NOTIFY + poll), its watchers, and the
// retention job that keeps resource_change to a window (default 24 h).
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../domain/logger.ts';
import { ChangeFeed } from './change-feed.ts';
import { pruneChanges } from './resource-changes.ts';
import { WatchHub, type WatcherInfo } from './watch-hub.ts';
import { BASIC_RESOLVERS, type WorkerResolvers } from './worker-resolvers.ts';

export const DEFAULT_CHANGE_RETENTION_MS = 24 * 3_600_000;
export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;

export interface SyncOptions {
  /** LISTEN on a dedicated connection (default true). Off for the embedded PGlite, which takes one connection. */
  listen?: boolean;
  /** Connection string for LISTEN (default: the ORM's). */
  databaseUrl?: string;
  /** Safety-net read of resource_change (default 2 s). */
  pollIntervalMs?: number;
  /** Changes older than this are removed (default 24 h); workers further behind are told to reset. */
  retentionMs?: number;
  /** How often the retention job runs (default 10 min); 0 turns it off on this replica. */
  retentionIntervalMs?: number;
}

export interface SyncService {
  feed: ChangeFeed;
  hub: WatchHub;
  /** Connected watchers with their acknowledged versions. */
  watchers(): WatcherInfo[];
  /** Runs the retention job now. */
  prune(): Promise<{ deleted: number; horizon: number }>;
  stop(): Promise<void>;
}

export async function startSync(orm: MikroORM, logger: Logger, opts: SyncOptions = {}, resolvers: WorkerResolvers = BASIC_RESOLVERS): Promise<SyncService> {
  const feed = new ChangeFeed(orm, { listen: opts.listen, databaseUrl: opts.databaseUrl, pollIntervalMs: opts.pollIntervalMs, logger, resolvers });
  await feed.start();
  const hub = new WatchHub(orm, feed, logger, resolvers);
  const retentionMs = opts.retentionMs ?? DEFAULT_CHANGE_RETENTION_MS;
  const prune = async () => {
    const r = await pruneChanges(orm.em.fork(), retentionMs);
    if (r.deleted) logger.info('resource changes pruned', { deleted: r.deleted, horizon: r.horizon });
    return r;
  };
  const interval = opts.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS;
  const timer = interval > 0 ? setInterval(() => void prune().catch((err: unknown) => logger.warn('pruning resource changes failed', { err: String(err) })), interval) : null;
  timer?.unref?.();
  return {
    feed,
    hub,
    watchers: () => hub.watchers(),
    prune,
    async stop() {
      if (timer) clearInterval(timer);
      hub.close();
      await feed.stop();
    },
  };
}
