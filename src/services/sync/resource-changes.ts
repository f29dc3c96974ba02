// The resource_change log (migration 0004): what changed, with versions from resource_revision_seq.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ResolvedKey } from '../../domain/api-key.ts';
import { API_KEY_RESOURCE, type ResolvedResource, type ResourceEvent } from '../../domain/sync-codec.ts';
import { resolveKeyByHash } from '../api-keys/resolve-key.ts';
import { BASIC_RESOLVERS, type WorkerResolvers } from './worker-resolvers.ts';

export interface ChangeRow {
  version: number;
  resourceType: string;
  resourceKey: string;
  action: 'upsert' | 'delete';
}

interface RawChange {
  version: string;
  resource_type: string;
  resource_key: string;
  action: 'upsert' | 'delete';
}

const toRow = (r: RawChange): ChangeRow => ({ version: Number(r.version), resourceType: r.resource_type, resourceKey: r.resource_key, action: r.action });

/** Changes after `after`, oldest first, at most `limit`. */
export async function changesAfter(em: EntityManager, after: number, limit: number): Promise<ChangeRow[]> {
  const rows = await em
    .getConnection()
    .execute<RawChange[]>('select version, resource_type, resource_key, action from resource_change where version > ? order by version limit ?', [after, limit]);
  return rows.map(toRow);
}

/** The latest change of each resource changed after `after`, oldest first (what a reconnecting worker missed). */
export async function latestChangesAfter(em: EntityManager, after: number): Promise<ChangeRow[]> {
  const rows = await em.getConnection().execute<RawChange[]>(
    `select * from (
       select distinct on (resource_type, resource_key) version, resource_type, resource_key, action
       from resource_change where version > ? order by resource_type, resource_key, version desc) latest
     order by version`,
    [after],
  );
  return rows.map(toRow);
}

/** The highest version the retention job removed: a subscriber below it may have missed changes. */
export async function changeHorizon(em: EntityManager): Promise<number> {
  const [row] = await em.getConnection().execute<{ version: string }[]>('select version from resource_change_horizon');
  return Number(row?.version ?? 0);
}

/** The last value handed out by resource_revision_seq (every version so far is at most this). */
export async function lastVersion(em: EntityManager): Promise<number> {
  const [row] = await em.getConnection().execute<{ last_value: string; is_called: boolean }[]>('select last_value, is_called from resource_revision_seq');
  return row?.is_called ? Number(row.last_value) : 0;
}

/** xmin and xmax of a snapshot taken now (transaction ids as bigints). */
export async function snapshotBounds(em: EntityManager): Promise<{ xmin: bigint; xmax: bigint }> {
  const [row] = await em
    .getConnection()
    .execute<{ xmin: string; xmax: string }[]>('select pg_snapshot_xmin(s)::text as xmin, pg_snapshot_xmax(s)::text as xmax from pg_current_snapshot() s');
  return { xmin: BigInt(row!.xmin), xmax: BigInt(row!.xmax) };
}

/** The highest version older than `ageMs`, or 0. */
export async function versionOlderThan(em: EntityManager, ageMs: number): Promise<number> {
  const [row] = await em
    .getConnection()
    .execute<{ v: string | null }[]>(`select max(version)::text as v from resource_change where created_at < now() - (?::bigint * interval '1 millisecond')`, [ageMs]);
  return Number(row?.v ?? 0);
}

/**
 * The current revision of each key hash that resolves now (the rules of findKeyByHash: the current
 * secret, or the previous one within its transition period, of a key not deleted). Hashes missing
 * from the map are gone.
 */
export async function currentKeyRevisions(em: EntityManager, hashes: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < hashes.length; i += 1_000) {
    const chunk = JSON.stringify(hashes.slice(i, i + 1_000));
    const rows = await em.getConnection().execute<{ hash: string; revision: string }[]>(
      `with h as (select array(select jsonb_array_elements_text(?::jsonb))::char(64)[] as hs)
       select key_hash as hash, revision from api_key, h where deleted_at is null and key_hash = any(h.hs)
       union all
       select previous_key_hash as hash, revision from api_key, h
        where deleted_at is null and previous_key_hash = any(h.hs) and previous_key_expires_at > now()`,
      [chunk],
    );
    for (const r of rows) out.set(r.hash, Number(r.revision));
  }
  return out;
}

/** Above this many upserts in one batch, events go without the key (workers invalidate and resolve on demand). */
export const MAX_RESOLVED_PER_BATCH = 500;

/**
 * Events for change rows. An upsert carries the resource as it resolves now (api_key: the key;
 * other types: their WorkerResolver's answer); one that no longer resolves (a rotated-out secret
 * past its transition, a config deleted since) becomes a delete.
 */
export async function eventsFor(em: EntityManager, rows: ChangeRow[], opts: { resolve: boolean; resolvers?: WorkerResolvers }): Promise<ResourceEvent[]> {
  const resolvers = opts.resolvers ?? BASIC_RESOLVERS;
  const upserts = rows.filter((r) => r.action === 'upsert' && (r.resourceType === API_KEY_RESOURCE || resolvers.isResolvable(r.resourceType)));
  const resolve = opts.resolve && upserts.length <= MAX_RESOLVED_PER_BATCH;
  const keys = new Map<string, ResolvedKey | null | undefined>();
  const resources = new Map<string, ResolvedResource | null | undefined>();
  if (resolve) {
    for (const r of upserts) {
      // A failed lookup sends the event without the resource: the worker invalidates instead.
      if (r.resourceType === API_KEY_RESOURCE) {
        if (!keys.has(r.resourceKey)) keys.set(r.resourceKey, await resolveKeyByHash(em, r.resourceKey).catch(() => undefined));
      } else {
        const id = `${r.resourceType}\u0000${r.resourceKey}`;
        if (!resources.has(id)) resources.set(id, await resolvers.resolve(em, r.resourceType, r.resourceKey).catch(() => undefined));
      }
    }
  }
  return rows.map((r): ResourceEvent => {
    const base = { version: r.version, resourceType: r.resourceType, resourceKey: r.resourceKey };
    if (r.resourceType === API_KEY_RESOURCE) {
      const key = r.action === 'upsert' ? keys.get(r.resourceKey) : undefined;
      if (key === null) return { ...base, action: 'delete', key: null };
      return { ...base, action: r.action, key: key ?? null };
    }
    const resource = r.action === 'upsert' ? resources.get(`${r.resourceType}\u0000${r.resourceKey}`) : undefined;
    if (resource === null) return { ...base, action: 'delete', key: null };
    return { ...base, action: r.action, key: null, resource: resource ?? null };
  });
}

/** The latest change version of each (type, key); pairs without a change row are absent. */
export async function currentResourceVersions(em: EntityManager, held: { type: string; key: string }[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < held.length; i += 1_000) {
    const chunk = JSON.stringify(held.slice(i, i + 1_000).map((h) => [h.type, h.key]));
    const rows = await em.getConnection().execute<{ t: string; k: string; v: string }[]>(
      `select c.resource_type as t, c.resource_key as k, max(c.version)::text as v
         from jsonb_array_elements(?::jsonb) h join resource_change c on c.resource_type = h->>0 and c.resource_key = h->>1
        group by 1, 2`,
      [chunk],
    );
    for (const r of rows) out.set(`${r.t}\u0000${r.k}`, Number(r.v));
  }
  return out;
}

/** Removes changes older than `retentionMs` and raises the horizon to the highest version removed. */
export async function pruneChanges(em: EntityManager, retentionMs: number): Promise<{ deleted: number; horizon: number }> {
  const [row] = await em.getConnection().execute<{ deleted: string; horizon: string }[]>(
    `with d as (delete from resource_change where created_at < now() - (?::bigint * interval '1 millisecond') returning version),
          u as (update resource_change_horizon set version = greatest(version, coalesce((select max(version) from d), 0)) returning version)
     select (select count(*) from d)::text as deleted, (select version from u)::text as horizon`,
    [retentionMs],
  );
  return { deleted: Number(row?.deleted ?? 0), horizon: Number(row?.horizon ?? 0) };
}
