// Feedback over REST and GraphQL (issue 9, item 4; control-plane-schemas 2.13): workspace keys
// only (gateway-spec, Authentication 3), value −10…10, weight 0…1 (default 1), linked by trace id.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
let base: string;
let wsKey: string;
let otherKey: string;
let readOnlyKey: string;

const sql = <T = any>(q: string, params: unknown[] = []) => stack.db.orm.em.getConnection().execute<T[]>(q, params);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function call(method: string, path: string, body?: unknown, key: string | null = wsKey) {
  const headers: Record<string, string> = {};
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

async function gql(query: string, variables: Record<string, unknown> = {}, key: string | null = wsKey) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-gateway-api-key'] = key;
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
  base = stack.controlPlane.httpUrl;
  wsKey = (await stack.createKey({ name: 'fb', workspace_id: 'ws-default', scopes: ['feedback.create', 'feedback.update'] })).key;
  readOnlyKey = (await stack.createKey({ name: 'fb ro', workspace_id: 'ws-default', scopes: ['logs.list'] })).key;
  const ws = await fetch(`${base}/v1/admin/workspaces`, { method: 'POST', headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Fb Other' }) });
  const other = (await ws.json()) as { id: string };
  otherKey = (await stack.createKey({ name: 'fb other', workspace_id: other.id, scopes: ['feedback.create', 'feedback.update'] })).key;
});
afterAll(async () => stack?.close());

describe('POST /v1/feedback', () => {
  it('stores feedback for a trace in the key’s workspace, weight 1 by default', async () => {
    const r = await call('POST', '/v1/feedback', { trace_id: 'trace-1', value: 5, metadata: { reason: 'good' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', message: expect.any(String), feedback_ids: [expect.stringMatching(UUID_RE)] });
    const [row] = await sql('select * from feedback where id = ?', [r.body.feedback_ids[0]]);
    expect(row).toMatchObject({ workspace_id: stack.workspaceId, organisation_id: stack.organisationId, trace_id: 'trace-1', value: 5, weight: 1, metadata: { reason: 'good' } });
    expect((await sql(`select count(*)::int as n from audit_event where action = 'feedback.create' and target_id = ?`, [r.body.feedback_ids[0]]))[0].n).toBe(1);
  });

  it('refuses organisation (admin) keys: only workspace keys may create feedback', async () => {
    const r = await call('POST', '/v1/feedback', { trace_id: 't', value: 1 }, stack.adminKey);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('workspace_key_required');
  });

  it('needs the feedback.create scope', async () => {
    const r = await call('POST', '/v1/feedback', { trace_id: 't', value: 1 }, readOnlyKey);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('missing_scope');
  });

  it('validates value (−10…10, integer), weight (0…1), trace_id (required) and unknown fields', async () => {
    const cases: [unknown, string][] = [
      [{ trace_id: 't', value: 11 }, 'value'],
      [{ trace_id: 't', value: -11 }, 'value'],
      [{ trace_id: 't', value: 1.5 }, 'value'],
      [{ trace_id: 't', value: 1, weight: 1.5 }, 'weight'],
      [{ trace_id: 't', value: 1, weight: -0.1 }, 'weight'],
      [{ value: 1 }, 'trace_id'],
      [{ trace_id: 't' }, 'value'],
      [{ trace_id: 't', value: 1, extra: true }, 'extra'],
    ];
    for (const [body, param] of cases) {
      const r = await call('POST', '/v1/feedback', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.param, JSON.stringify(body)).toBe(param);
    }
    const edge = await call('POST', '/v1/feedback', { trace_id: 't', value: -10, weight: 0 });
    expect(edge.status).toBe(200);
  });
});

describe('PUT /v1/feedback/{id}', () => {
  it('updates value, weight and metadata', async () => {
    const id = (await call('POST', '/v1/feedback', { trace_id: 'trace-2', value: 1, weight: 0.5 })).body.feedback_ids[0];
    const r = await call('PUT', `/v1/feedback/${id}`, { value: -3, metadata: { edited: true } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', message: expect.any(String), feedback_ids: [id] });
    const [row] = await sql('select value, weight, metadata from feedback where id = ?', [id]);
    expect(row).toEqual({ value: -3, weight: 0.5, metadata: { edited: true } });
    expect((await call('PUT', `/v1/feedback/${id}`, { value: 2, weight: 0.25 })).status).toBe(200);
    expect((await sql('select value, weight from feedback where id = ?', [id]))[0]).toEqual({ value: 2, weight: 0.25 });
  });

  it('requires value; 404 for unknown ids and other workspaces; organisation keys refused', async () => {
    const id = (await call('POST', '/v1/feedback', { trace_id: 'trace-3', value: 1 })).body.feedback_ids[0];
    expect((await call('PUT', `/v1/feedback/${id}`, { weight: 0.5 })).body.error.param).toBe('value');
    expect((await call('PUT', `/v1/feedback/${id}`, { value: 1 }, otherKey)).status).toBe(404);
    expect((await call('PUT', `/v1/feedback/${crypto.randomUUID()}`, { value: 1 })).status).toBe(404);
    expect((await call('PUT', '/v1/feedback/not-a-uuid', { value: 1 })).status).toBe(404);
    const org = await call('PUT', `/v1/feedback/${id}`, { value: 1 }, stack.adminKey);
    expect(org.status).toBe(403);
    expect(org.body.error.code).toBe('workspace_key_required');
  });
});

describe('feedback over GraphQL', () => {
  const CREATE = `mutation($input: CreateFeedbackInput!) { createFeedback(input: $input) { __typename ... on FeedbackResult { result: status feedback_ids } ... on GatewayError { code param status } } }`;
  const UPDATE = `mutation($id: ID!, $input: UpdateFeedbackInput!) { updateFeedback(id: $id, input: $input) { __typename ... on FeedbackResult { result: status feedback_ids } ... on GatewayError { code param status } } }`;

  it('creates and updates with a workspace key; refuses organisation keys', async () => {
    const c = await gql(CREATE, { input: { trace_id: 'gql-trace', value: 7, weight: 0.9 } });
    expect(c.body.data.createFeedback).toMatchObject({ __typename: 'FeedbackResult', result: 'success' });
    const id = c.body.data.createFeedback.feedback_ids[0];
    const u = await gql(UPDATE, { id, input: { value: 8 } });
    expect(u.body.data.updateFeedback).toEqual({ __typename: 'FeedbackResult', result: 'success', feedback_ids: [id] });
    expect((await sql('select value, weight from feedback where id = ?', [id]))[0]).toEqual({ value: 8, weight: 0.9 });
    const org = await gql(CREATE, { input: { trace_id: 'x', value: 1 } }, stack.adminKey);
    expect(org.body.data.createFeedback).toEqual({ __typename: 'GatewayError', code: 'workspace_key_required', param: null, status: 403 });
    const bad = await gql(CREATE, { input: { trace_id: 'x', value: 20 } });
    expect(bad.body.data.createFeedback).toMatchObject({ __typename: 'GatewayError', param: 'value', status: 400 });
  });
});
