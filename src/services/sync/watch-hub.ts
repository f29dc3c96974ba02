// The Watch streams connected to this replica (independent of gRPC): catch-up on subscribe,
// answers about held resources, live changes from the ChangeFeed, acknowledged versions.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../../domain/logger.ts';
import { API_KEY_RESOURCE, type HeldResource, type ResourceEvent, type WatchSubscription } from '../../domain/sync-codec.ts';
import { resolveKeyByHash } from '../api-keys/resolve-key.ts';
import type { ChangeFeed } from './change-feed.ts';
import { changeHorizon, currentKeyRevisions, currentResourceVersions, eventsFor, lastVersion, latestChangesAfter, MAX_RESOLVED_PER_BATCH } from './resource-changes.ts';
import { BASIC_RESOLVERS, type WorkerResolvers } from './worker-resolvers.ts';

export interface WatchSink {
  send(event: ResourceEvent): void;
  /** The session cannot go on (the database failed during catch-up): the stream should end with an error. */
  fail(err: unknown): void;
}

export interface WatcherInfo {
  streamId: number;
  workerId: string;
  connectedAt: string;
  /** The since_version the worker subscribed with. */
  sinceVersion: number;
  /** The highest version the worker acknowledged on this stream (0 before its first ack). */
  ackedVersion: number;
  /** The highest version sent on this stream. */
  sentVersion: number;
  /** Catch-up done: the stream now carries live changes. */
  caughtUp: boolean;
}

export class WatchSession {
  ackedVersion = 0;
  sentVersion = 0;
  readonly connectedAt = new Date();
  private buffer: ResourceEvent[][] | null = [];
  private chain: Promise<void>;
  private closed = false;

  constructor(
    readonly streamId: number,
    private readonly hub: WatchHub,
    private readonly sub: WatchSubscription,
    private readonly sink: WatchSink,
  ) {
    this.chain = this.catchUp().catch((err: unknown) => this.fail(err));
  }

  get workerId(): string {
    return this.sub.workerId;
  }

  info(): WatcherInfo {
    return {
      streamId: this.streamId,
      workerId: this.sub.workerId,
      connectedAt: this.connectedAt.toISOString(),
      sinceVersion: this.sub.sinceVersion,
      ackedVersion: this.ackedVersion,
      sentVersion: this.sentVersion,
      caughtUp: this.buffer === null,
    };
  }

  /** More held resources (sent after the subscribe by workers holding many). */
  addHeld(held: HeldResource[]): void {
    this.chain = this.chain.then(() => this.answerHeld(held)).catch((err: unknown) => this.fail(err));
  }

  ack(version: number): void {
    if (version > this.ackedVersion) this.ackedVersion = version;
    this.hub.logger.debug('watch ack', { worker_id: this.sub.workerId, stream: this.streamId, version });
  }

  /** Live changes from the feed; held back until catch-up is done. */
  live(events: ResourceEvent[]): void {
    if (this.closed) return;
    if (this.buffer) this.buffer.push(events);
    else for (const e of events) this.send(e);
  }

  /** Resolves once catch-up and every held answer queued so far are sent. */
  settled(): Promise<void> {
    return this.chain;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer = null;
    this.hub.remove(this);
  }

  private send(e: ResourceEvent): void {
    if (this.closed) return;
    if (e.version > this.sentVersion) this.sentVersion = e.version;
    this.sink.send(e);
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.hub.logger.warn('watch catch-up failed', { worker_id: this.sub.workerId, err: String(err) });
    this.sink.fail(err);
    this.close();
  }

  private async catchUp(): Promise<void> {
    const em = this.hub.orm.em.fork();
    const since = this.sub.sinceVersion;
    const horizon = await changeHorizon(em);
    const last = await lastVersion(em);
    let from = since;
    if (since > last) {
      // Versions from another database (restored, or a different installation): start over.
      this.send({ version: 0, resourceType: '*', resourceKey: '', action: 'reset', key: null });
      from = 0;
    } else if (since < horizon) {
      // Changes after `since` were removed by retention: what the worker holds can no longer be
      // brought up to date change by change.
      this.send({ version: horizon, resourceType: '*', resourceKey: '', action: 'reset', key: null });
    }
    const missed = await latestChangesAfter(em, from);
    for (const e of await eventsFor(em, missed, { resolve: true, resolvers: this.hub.resolvers })) this.send(e);
    await this.answerHeld(this.sub.held);
    const buffered = this.buffer ?? [];
    this.buffer = null;
    for (const events of buffered) for (const e of events) this.send(e);
  }

  /** An event for each held resource whose version differs from what is held now, or that is gone. */
  private async answerHeld(held: HeldResource[]): Promise<void> {
    await this.answerHeldKeys(held.filter((h) => h.type === API_KEY_RESOURCE));
    await this.answerHeldResources(held.filter((h) => h.type !== API_KEY_RESOURCE && this.hub.resolvers.isResolvable(h.type)));
  }

  /** Other resource types: a held version that is not the latest change is answered with the resource now (or a delete). */
  private async answerHeldResources(held: HeldResource[]): Promise<void> {
    if (!held.length || this.closed) return;
    const em = this.hub.orm.em.fork();
    const current = await currentResourceVersions(em, held);
    const changed = held.filter((h) => current.get(`${h.type}\u0000${h.key}`) !== h.version);
    const resolve = changed.length <= MAX_RESOLVED_PER_BATCH;
    for (const h of changed) {
      const base = { version: 0, resourceType: h.type, resourceKey: h.key, key: null };
      const resource = resolve ? await this.hub.resolvers.resolve(em, h.type, h.key) : undefined;
      if (resource === null) this.send({ ...base, action: 'delete' });
      else this.send({ ...base, action: 'upsert', resource: resource ?? null });
    }
  }

  private async answerHeldKeys(keys: HeldResource[]): Promise<void> {
    if (!keys.length || this.closed) return;
    const em = this.hub.orm.em.fork();
    const current = await currentKeyRevisions(em, keys.map((k) => k.key));
    const changed = keys.filter((k) => current.get(k.key) !== k.version);
    const resolve = changed.length <= MAX_RESOLVED_PER_BATCH;
    for (const k of changed) {
      const base = { version: 0, resourceType: API_KEY_RESOURCE, resourceKey: k.key };
      if (!current.has(k.key)) {
        this.send({ ...base, action: 'delete', key: null });
        continue;
      }
      const key = resolve ? await resolveKeyByHash(em, k.key) : undefined;
      if (key === null) this.send({ ...base, action: 'delete', key: null });
      else this.send({ ...base, action: 'upsert', key: key ?? null });
    }
  }
}

/** The replica's watchers. */
export class WatchHub {
  private readonly sessions = new Set<WatchSession>();
  private streams = 0;
  private unsubscribe: (() => void) | null = null;

  constructor(
    readonly orm: MikroORM,
    readonly feed: ChangeFeed,
    readonly logger: Logger,
    readonly resolvers: WorkerResolvers = BASIC_RESOLVERS,
  ) {}

  open(sub: WatchSubscription, sink: WatchSink): WatchSession {
    // Listen before catching up, so nothing committed in between is missed (duplicates are harmless).
    if (!this.unsubscribe) this.unsubscribe = this.feed.subscribe((events) => this.fanOut(events));
    const session = new WatchSession(++this.streams, this, sub, sink);
    this.sessions.add(session);
    this.logger.info('worker watching', { worker_id: sub.workerId, stream: session.streamId, since_version: sub.sinceVersion, held: sub.held.length });
    return session;
  }

  /** Connected watchers and what they acknowledged. */
  watchers(): WatcherInfo[] {
    return [...this.sessions].map((s) => s.info());
  }

  get count(): number {
    return this.sessions.size;
  }

  remove(session: WatchSession): void {
    if (!this.sessions.delete(session)) return;
    this.logger.info('worker stopped watching', { worker_id: session.workerId, stream: session.streamId, acked_version: session.ackedVersion });
    if (this.sessions.size === 0 && this.unsubscribe) {
      this.unsubscribe();
      this.unsubscribe = null;
    }
  }

  close(): void {
    for (const s of [...this.sessions]) s.close();
  }

  private fanOut(events: ResourceEvent[]): void {
    for (const s of this.sessions) s.live(events);
  }
}
