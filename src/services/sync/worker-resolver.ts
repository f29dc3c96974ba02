// How a resource is handed to workers (gRPC Resolve, issue 4 item 10 / issue 5 item 1).
// Each resource's service folder exports one WorkerResolver; the gRPC server looks them up by
// `type`. The resource's resource_change trigger writes the same `type` and `key`, so a Watch
// event names exactly what a worker resolved and holds.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface WorkerResolution {
  /** The resource's version: the highest resource_change version of this (type, key), or a revision column. */
  version: number;
  /** What the worker needs, as plain JSON (credentials decrypted: only ever sent to workers, never logged). */
  payload: Record<string, unknown>;
}

export interface WorkerResolver {
  /** resource_change.resource_type, e.g. `provider`, `config`, `guardrail`. */
  type: string;
  /** `key` as the trigger writes it (e.g. `<workspace_id>:<slug>` or `<id>`); null when unknown or deleted. */
  resolve(em: EntityManager, key: string): Promise<WorkerResolution | null>;
}

/** The current version of a resource: its latest resource_change row (0 if none). */
export async function latestChangeVersion(em: EntityManager, type: string, key: string): Promise<number> {
  const [row] = await em
    .getConnection()
    .execute<{ v: string | null }[]>('select max(version)::text as v from resource_change where resource_type = ? and resource_key = ?', [type, key]);
  return Number(row?.v ?? 0);
}
