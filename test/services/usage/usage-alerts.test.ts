// Issue 8 item 3: storing a usage record that crossed an alert threshold notifies once: key alerts
// to the key's alert_emails through the pluggable sender; a resent batch notifies nothing again.
// Also item 4: cost and cached prompt tokens land in request_log (migration 0013).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { UsageAlert, UsageRecord } from '../../../src/domain/usage-record.ts';
import type { AlertNotice } from '../../../src/services/usage/alert-sender.ts';
import { storeUsageBatch } from '../../../src/services/usage/store-usage.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ workers: 0 });
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

const record = (id: string, keyId: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
  idempotency_id: `${id}:0`, request_id: id, attempt: 0, trace_id: `trace-${id}`, organisation_id: stack.organisationId, workspace_id: stack.workspaceId,
  api_key_id: keyId, provider: 'openai', model: 'gpt-4o', endpoint: 'chat.completions', method: 'POST', status: 200,
  started_at_ms: Date.now(), latency_ms: 12, upstream_latency_ms: 10, prompt_tokens: 1_000, completion_tokens: 100, total_tokens: 1_100,
  is_stream: false, error_code: '', metadata_json: '', ...over,
});

describe('usage alerts and cost when usage is stored', () => {
  it('notifies the key alert_emails once per crossing record, policies with no recipients, and never for a resent batch', async () => {
    const { id } = await stack.createKey({ name: 'alerts', workspace_id: 'ws-default', scopes: ['completions.write'], usage_limits: { credit_limit: 10, type: 'cost', alert_threshold: 8 }, alert_emails: ['ops@example.com', 'fin@example.com'] });
    const keyAlert: UsageAlert = { scope: 'api_key', id, type: 'cost', alert_threshold: 8, credit_limit: 10, period_end_ms: Date.UTC(9999, 0, 1) };
    const policyAlert: UsageAlert = { scope: 'policy', id: crypto.randomUUID(), type: 'tokens', alert_threshold: 40, credit_limit: 50, period_end_ms: Date.UTC(2026, 11, 1) };
    const sent: AlertNotice[] = [];
    const sender = { send: async (n: AlertNotice) => void sent.push(n) };
    const batch = {
      batch_id: 'b1',
      records: [record('r1', id), record('r2', id, { alerts_json: JSON.stringify([keyAlert, policyAlert]) }), record('r3', id, { alerts_json: 'not json' })],
    };
    expect(await storeUsageBatch(stack.db.orm.em.fork(), batch, sender)).toEqual({ batch_id: 'b1', stored: 3, duplicates: 0, rejected: 0 });
    expect(sent).toEqual([
      { to: ['ops@example.com', 'fin@example.com'], organisation_id: stack.organisationId, workspace_id: stack.workspaceId, api_key_id: id, request_id: 'r2', alert: keyAlert },
      { to: [], organisation_id: stack.organisationId, workspace_id: stack.workspaceId, api_key_id: id, request_id: 'r2', alert: policyAlert },
    ]);
    expect(await storeUsageBatch(stack.db.orm.em.fork(), batch, sender)).toMatchObject({ stored: 0, duplicates: 3 });
    expect(sent).toHaveLength(2);
  });

  it('a failing sender does not fail the batch', async () => {
    const { id } = await stack.createKey({ name: 'alerts-2', workspace_id: 'ws-default', scopes: ['completions.write'], alert_emails: ['ops@example.com'] });
    const alert: UsageAlert = { scope: 'api_key', id, type: 'tokens', alert_threshold: 1, credit_limit: 2, period_end_ms: 0 };
    const sender = { send: async () => Promise.reject(new Error('smtp down')) };
    const ack = await storeUsageBatch(stack.db.orm.em.fork(), { batch_id: 'b2', records: [record('f1', id, { alerts_json: JSON.stringify([alert]) })] }, sender);
    expect(ack.stored).toBe(1);
  });

  it('stores the cost in cents and the cached prompt tokens; no price stores no cost', async () => {
    const { id } = await stack.createKey({ name: 'cost', workspace_id: 'ws-default', scopes: ['completions.write'] });
    await storeUsageBatch(stack.db.orm.em.fork(), { batch_id: 'b3', records: [record('c1', id, { cost: 0.3, cached_prompt_tokens: 400 }), record('c2', id, { model: 'unknown' })] });
    const got = await stack.db.orm.em.getConnection().execute<{ request_id: string; cost: string | null; cached_prompt_tokens: number | null }[]>(
      `select request_id, cost, cached_prompt_tokens from request_log where request_id in ('c1', 'c2') order by request_id`,
    );
    expect(got.map((r) => ({ ...r, cost: r.cost === null ? null : Number(r.cost) }))).toEqual([
      { request_id: 'c1', cost: 0.3, cached_prompt_tokens: 400 },
      { request_id: 'c2', cost: null, cached_prompt_tokens: null },
    ]);
  });
});
