// Draft routes (api-catalogue "Logs — draft branch (2)", responses untyped upstream):
// GET /logs/metadata/{key} — the distinct values of a metadata key in the caller's logs, with
// how often each occurs; GET /logs/groups/metadata/{key} — the logs grouped by that key's value.
// Both take the log filters of GET /logs and 0-based current_page/page_size (newest use first).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { parseWith } from '../../domain/validation.ts';
import type { Actor } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { page, type Page } from '../paging.ts';
import { filterSql, logFilterFields, resolveFilterWorkspace } from './log-filters.ts';

const schema = z.strictObject({
  ...logFilterFields,
  current_page: z.coerce.number().int().min(0).optional(),
  page_size: z.coerce.number().int().min(1).max(1000).optional(),
});

const literal = (key: string) => `'${key.replace(/'/g, "''")}'`;

async function scope(em: EntityManager, actor: Actor, input: unknown) {
  authorize(actor, 'logs.list');
  const { current_page, page_size, ...filters } = parseWith(schema, input ?? {});
  const workspaceIdResolved = await resolveFilterWorkspace(em, actor, filters);
  const size = page_size ?? 100;
  return { sql: filterSql({ ...filters, organisationId: actor.organisationId, workspaceIdResolved }), limit: size, offset: (current_page ?? 0) * size };
}

export interface MetadataValue {
  value: string;
  count: number;
  last_seen: string;
}

export async function listMetadataValues(em: EntityManager, actor: Actor, key: string, input: unknown): Promise<Page<MetadataValue>> {
  const s = await scope(em, actor, input);
  const k = literal(key);
  const where = `${s.sql.where} and jsonb_exists(l.metadata, ${k})`;
  const conn = em.getConnection();
  const rows = await conn.execute<{ v: string; n: string; last: Date }[]>(
    `select l.metadata ->> ${k} as v, count(*) as n, max(l.started_at) as last from request_log l where ${where}
      group by 1 order by max(l.started_at) desc, 1 limit ${s.limit} offset ${s.offset}`,
    s.sql.params,
  );
  const total = await conn.execute<{ n: string }[]>(`select count(distinct l.metadata ->> ${k}) as n from request_log l where ${where}`, s.sql.params);
  return page(rows.map((r) => ({ value: r.v, count: Number(r.n), last_seen: new Date(r.last).toISOString() })), Number(total[0]?.n ?? 0));
}

export interface MetadataGroup {
  metadata_value: string;
  requests: number;
  errors: number;
  cost: number;
  total_units: number;
  avg_response_time: number;
  first_seen: string;
  last_seen: string;
}

export async function groupLogsByMetadata(em: EntityManager, actor: Actor, key: string, input: unknown): Promise<Page<MetadataGroup>> {
  const s = await scope(em, actor, input);
  const k = literal(key);
  const where = `${s.sql.where} and jsonb_exists(l.metadata, ${k})`;
  const conn = em.getConnection();
  const rows = await conn.execute<Record<string, unknown>[]>(
    `select l.metadata ->> ${k} as v, count(*) as n, count(*) filter (where l.status >= 400) as e, sum(l.cost) as c, sum(l.total_tokens) as t,
            avg(l.latency_ms) as lat, min(l.started_at) as first, max(l.started_at) as last
       from request_log l where ${where} group by 1 order by count(*) desc, 1 limit ${s.limit} offset ${s.offset}`,
    s.sql.params,
  );
  const total = await conn.execute<{ n: string }[]>(`select count(distinct l.metadata ->> ${k}) as n from request_log l where ${where}`, s.sql.params);
  return page(
    rows.map((r) => ({
      metadata_value: String(r.v), requests: Number(r.n), errors: Number(r.e), cost: Number(r.c ?? 0), total_units: Number(r.t ?? 0),
      avg_response_time: Math.round(Number(r.lat ?? 0)), first_seen: new Date(r.first as string).toISOString(), last_seen: new Date(r.last as string).toISOString(),
    })),
    Number(total[0]?.n ?? 0),
  );
}
