// The log filters shared by the log list, log exports and analytics: the common filter query
// parameters of api-catalogue §3.4 and the export GenerationsFilterSchema (control-plane-schemas
// 1.5), turned into one SQL condition over `request_log l`.
import { z } from 'zod';
import { invalidParameter, notFound } from '../../domain/errors.ts';
import { parseWith } from '../../domain/validation.ts';
import type { Actor } from '../auth/actor.ts';
import { isOrganisationKey } from '../auth/actor.ts';
import { assertVisible } from '../auth/authorize.ts';
import { findWorkspace } from '../workspaces/find-workspace.ts';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Comma-separated in a query string, or a JSON array in a body. */
const list = z
  .union([z.string(), z.array(z.union([z.string(), z.number()]))])
  .transform((v) => (Array.isArray(v) ? v.map(String) : v.split(',')).map((s) => s.trim()).filter(Boolean));
const count = z.coerce.number().int().min(0);
const amount = z.coerce.number().finite().min(0);
const feedback = z.coerce.number().finite().min(-10).max(10);
const time = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO-8601 date-time')
  .transform((v) => new Date(v));
const metadata = z
  .union([z.string(), z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))])
  .transform((v, ctx) => {
    if (typeof v !== 'string') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
    try {
      const parsed = JSON.parse(v);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return Object.fromEntries(Object.entries(parsed).map(([k, x]) => [k, String(x)]));
    } catch {
      /* reported below */
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON object of string values' });
    return z.NEVER;
  });

export const logFilterFields = {
  time_of_generation_min: time.optional(),
  time_of_generation_max: time.optional(),
  workspace_id: z.string().min(1).optional(),
  workspace_slug: z.string().min(1).optional(),
  api_key_ids: list.optional(),
  status_code: list
    .transform((v, ctx) => {
      const codes = v.map(Number);
      if (codes.some((n) => !Number.isInteger(n) || n < 100 || n > 599)) ctx.addIssue({ code: 'custom', message: 'must be HTTP status codes (100–599), comma-separated' });
      return codes;
    })
    .optional(),
  ai_model: list.optional(),
  provider: list.optional(),
  ai_org_model: list.optional(),
  metadata: metadata.optional(),
  trace_id: list.optional(),
  span_id: list.optional(),
  user: list.optional(),
  configs: list.optional(),
  virtual_keys: list.optional(),
  prompt_slug: list.optional(),
  cache_status: list.optional(),
  total_units_min: count.optional(),
  total_units_max: count.optional(),
  prompt_token_min: count.optional(),
  prompt_token_max: count.optional(),
  completion_token_min: count.optional(),
  completion_token_max: count.optional(),
  cost_min: amount.optional(),
  cost_max: amount.optional(),
  weighted_feedback_min: feedback.optional(),
  weighted_feedback_max: feedback.optional(),
};

export const logFilterSchema = z.strictObject(logFilterFields);
export type LogFilterInput = z.output<typeof logFilterSchema>;

export const FILTER_KEYS = Object.keys(logFilterFields);

/** A filter with its workspace resolved: null = every workspace of the organisation. */
export interface LogFilter extends LogFilterInput {
  organisationId: string;
  workspaceIdResolved: string | null;
}

export function parseLogFilter(input: unknown, prefix = ''): LogFilterInput {
  const f = parseWith(logFilterSchema, input ?? {}, prefix);
  if (f.time_of_generation_min && f.time_of_generation_max && f.time_of_generation_min > f.time_of_generation_max) {
    const p = [prefix, 'time_of_generation_min'].filter(Boolean).join('.');
    throw invalidParameter(p, `${p}: must not be after time_of_generation_max`);
  }
  return f;
}

/**
 * The workspace a read covers. Workspace keys: their own; naming another is "not there" (404),
 * or ignored with `ignoreForWorkspaceKeys` (analytics: "ignored for workspace API keys").
 * Organisation keys: the named one, else `fallback` (every workspace, or the default one).
 */
export async function resolveFilterWorkspace(
  em: EntityManager,
  actor: Actor,
  f: LogFilterInput,
  opts: { ignoreForWorkspaceKeys?: boolean; fallback?: 'all' | 'default' } = {},
): Promise<string | null> {
  const named = f.workspace_id ?? f.workspace_slug;
  const param = f.workspace_id ? 'workspace_id' : 'workspace_slug';
  if (!isOrganisationKey(actor) && (opts.ignoreForWorkspaceKeys || !named)) return actor.workspaceId;
  if (named) {
    const ws = await findWorkspace(em, actor.organisationId, named);
    if (!ws) throw notFound('Workspace', param);
    assertVisible(actor, ws.id, 'Workspace', param);
    return ws.id;
  }
  if (opts.fallback === 'default') {
    const rows = await em.getConnection().execute<{ id: string }[]>('select id from workspace where organisation_id = ? and is_default = true limit 1', [actor.organisationId]);
    return rows[0]?.id ?? null;
  }
  return null;
}

/** `where` conditions (joined by and) with their parameters, over `request_log l`. */
export function filterSql(f: LogFilter, alias = 'l'): { where: string; params: unknown[] } {
  const c: string[] = [`${alias}.organisation_id = ?`];
  const p: unknown[] = [f.organisationId];
  const col = (name: string) => `${alias}.${name}`;
  const inList = (name: string, values: unknown[] | undefined) => {
    if (!values?.length) return;
    c.push(`${col(name)} in (${values.map(() => '?').join(',')})`);
    p.push(...values);
  };
  const range = (expr: string, min: number | undefined, max: number | undefined) => {
    if (min !== undefined) (c.push(`${expr} >= ?`), p.push(min));
    if (max !== undefined) (c.push(`${expr} <= ?`), p.push(max));
  };
  if (f.workspaceIdResolved) (c.push(`${col('workspace_id')} = ?`), p.push(f.workspaceIdResolved));
  if (f.time_of_generation_min) (c.push(`${col('started_at')} >= ?`), p.push(f.time_of_generation_min));
  if (f.time_of_generation_max) (c.push(`${col('started_at')} <= ?`), p.push(f.time_of_generation_max));
  if (f.api_key_ids?.length) {
    // api_key_id is a uuid column: ids that are not uuids match nothing (instead of a type error).
    const ids = f.api_key_ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
    if (ids.length) inList('api_key_id', ids);
    else c.push('false');
  }
  inList('status', f.status_code);
  inList('model', f.ai_model);
  inList('provider', f.provider);
  inList('trace_id', f.trace_id);
  inList('span_id', f.span_id);
  inList('user_id', f.user);
  inList('config_id', f.configs);
  inList('virtual_key', f.virtual_keys);
  inList('prompt_slug', f.prompt_slug);
  inList('cache_status', f.cache_status);
  if (f.ai_org_model?.length) {
    const pairs = f.ai_org_model.map((v) => {
      const i = v.indexOf('__');
      return i < 0 ? [v, null] : [v.slice(0, i), v.slice(i + 2)];
    });
    c.push(`(${pairs.map(([, m]) => (m === null ? `${col('provider')} = ?` : `(${col('provider')} = ? and ${col('model')} = ?)`)).join(' or ')})`);
    for (const [prov, m] of pairs) p.push(prov, ...(m === null ? [] : [m]));
  }
  if (f.metadata && Object.keys(f.metadata).length) (c.push(`${col('metadata')} @> ?::jsonb`), p.push(JSON.stringify(f.metadata)));
  range(col('total_tokens'), f.total_units_min, f.total_units_max);
  range(col('prompt_tokens'), f.prompt_token_min, f.prompt_token_max);
  range(col('completion_tokens'), f.completion_token_min, f.completion_token_max);
  range(col('cost'), f.cost_min, f.cost_max);
  if (f.weighted_feedback_min !== undefined || f.weighted_feedback_max !== undefined) {
    // The request's weighted feedback: the mean of value × weight of its trace's feedback.
    const wf = `(select avg(fb.value * fb.weight) from feedback fb where fb.workspace_id = ${col('workspace_id')} and fb.trace_id = ${col('trace_id')})`;
    range(wf, f.weighted_feedback_min, f.weighted_feedback_max);
  }
  return { where: c.join(' and '), params: p };
}
