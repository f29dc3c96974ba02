// POST /logs (api-catalogue "Logs (2)"; control-plane-schemas 2.14): one CustomLog or an array of
// them — requests made outside the gateway, stored as request logs of the caller's workspace.
//
// Scope: the spec names no log-writing scope (logs.export/list/view only), and upstream serves
// this path from the gateway's server group (api-catalogue "CP †"), so inserting a log needs what
// sending a request through the gateway needs: completions.write.
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { invalidParameter } from '../../domain/errors.ts';
import { sensitiveHeaderNames, userOf } from '../../domain/log-fields.ts';
import { parseWith } from '../../domain/validation.ts';
import { isOrganisationKey, type Actor, type RequestMeta } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { recordAudit } from '../audit/record-audit.ts';
import { resolveFilterWorkspace } from './log-filters.ts';
import { insertLogRows, type LogRow } from './insert-logs.ts';
import { capBody, sanitizeHeaders } from './log-shaping.ts';

const headers = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));

const customLogSchema = z.object({
  request: z.object({
    url: z.string().min(1).max(4096),
    method: z.string().min(1).max(16).default('POST'),
    headers: headers.optional(),
    body: z.record(z.string(), z.unknown()),
  }),
  response: z.object({
    status: z.number().int().min(100).max(599).default(200),
    headers: headers.optional(),
    body: z.record(z.string(), z.unknown()),
    response_time: z.number().int().min(0).max(2_147_483_647).default(0),
  }),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});
export type CustomLog = z.output<typeof customLogSchema>;

const MAX_LOGS_PER_CALL = 1000;
const arraySchema = z.array(customLogSchema).min(1).max(MAX_LOGS_PER_CALL);

export interface InsertedLogs {
  stored: number;
  ids: string[];
}

const headerValue = (h: Record<string, string> | undefined, name: string): string | undefined =>
  Object.entries(h ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];

const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.min(Math.trunc(v), 2_147_483_647) : 0);

/** The provider a URL names: its host's second-level label (api.openai.com → openai), else `custom`. */
function providerOf(url: string): string {
  try {
    const host = new URL(url).hostname.split('.').filter(Boolean);
    return (host.length >= 2 ? host[host.length - 2]! : host[0] ?? 'custom').slice(0, 64);
  } catch {
    return 'custom';
  }
}

/** `/v1/chat/completions` → `chat.completions`, as gateway logs name endpoints. */
function endpointOf(url: string): string {
  let path = url;
  try {
    path = new URL(url, 'http://relative.invalid').pathname;
  } catch {
    /* keep */
  }
  return path.replace(/^\/v\d+\//, '/').split('/').filter(Boolean).join('.').slice(0, 64) || 'custom';
}

function toRow(log: CustomLog, actor: Actor, workspaceId: string | null, now: Date): LogRow {
  const { trace_id, span_id, span_name, ...rest } = log.metadata ?? {};
  const metadata = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null).map(([k, v]) => [k, String(v)]));
  const usage = (log.response.body.usage ?? {}) as Record<string, unknown>;
  const prompt = int(usage.prompt_tokens ?? usage.input_tokens);
  const completion = int(usage.completion_tokens ?? usage.output_tokens);
  const model = log.request.body.model ?? log.response.body.model;
  const reqBody = capBody(log.request.body);
  const resBody = capBody(log.response.body);
  const id = crypto.randomUUID();
  return {
    id,
    idempotency_id: `custom:${id}`,
    request_id: id,
    attempt: 0,
    trace_id: (trace_id ? String(trace_id) : crypto.randomUUID()).slice(0, 255),
    organisation_id: actor.organisationId,
    workspace_id: workspaceId,
    api_key_id: actor.keyId,
    provider: providerOf(log.request.url),
    model: typeof model === 'string' && model ? model.slice(0, 255) : null,
    endpoint: endpointOf(log.request.url),
    method: log.request.method.toUpperCase(),
    status: log.response.status,
    latency_ms: log.response.response_time,
    upstream_latency_ms: log.response.response_time,
    prompt_tokens: prompt,
    cached_prompt_tokens: null,
    completion_tokens: completion,
    total_tokens: int(usage.total_tokens) || prompt + completion,
    is_stream: false,
    error_code: null,
    metadata: Object.keys(metadata).length ? metadata : null,
    started_at: new Date(now.getTime() - log.response.response_time),
    user_id: userOf(metadata),
    cost: 0,
    cost_currency: 'USD',
    cache_status: null,
    retry_count: 0,
    target_path: null,
    guardrail_verdicts: null,
    request_url: log.request.url,
    request_headers: sanitizeHeaders(log.request.headers ?? null),
    request_body: reqBody.text,
    // The request's x-gateway-sensitive-headers also covers the response's headers of those names.
    response_headers: sanitizeHeaders(log.response.headers ?? null, sensitiveHeaderNames(headerValue(log.request.headers, 'x-gateway-sensitive-headers'))),
    response_body: resBody.text,
    bodies_truncated: reqBody.truncated || resBody.truncated,
    is_proxy: false,
    config_id: null,
    virtual_key: null,
    prompt_slug: null,
    span_id: span_id ? String(span_id).slice(0, 255) : null,
    span_name: span_name ? String(span_name).slice(0, 255) : null,
    mode: null,
    source: 'custom',
  };
}

/**
 * Stores the logs in one statement, with one audit event, in one transaction. Workspace keys log
 * into their workspace; organisation keys into `workspace_id` when given, else the default one.
 */
export async function insertCustomLogs(em: EntityManager, actor: Actor, meta: RequestMeta, input: unknown, workspace?: string | null): Promise<InsertedLogs> {
  authorize(actor, 'completions.write');
  if (input === null || input === undefined) throw invalidParameter('body', 'body: one log or an array of logs is required');
  // One schema or the other (not a union), so a 400 names the field inside the log.
  const logs = Array.isArray(input) ? parseWith(arraySchema, input) : [parseWith(customLogSchema, input)];
  const workspaceId = await resolveFilterWorkspace(em, actor, { workspace_id: workspace ?? undefined }, { fallback: 'default' });
  if (isOrganisationKey(actor) && !workspaceId) throw invalidParameter('workspace_id', 'workspace_id: required (the organisation has no default workspace)');
  authorize(actor, 'completions.write', { workspaceId });
  const now = new Date();
  const rows = logs.map((l) => toRow(l, actor, workspaceId, now));
  return em.transactional(async (tx) => {
    const { stored } = await insertLogRows(tx, rows);
    recordAudit(tx, actor, meta, { action: 'log.insert', targetType: 'log', targetId: null, workspaceId, details: { count: stored, ids: rows.map((r) => r.id) } });
    await tx.flush();
    return { stored, ids: rows.map((r) => r.id) };
  });
}
