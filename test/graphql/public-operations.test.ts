import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startStack, type Stack } from '../support/stack.ts';

let stack: Stack;
const gql = async (query: string, variables: unknown = {}, key?: string) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-gateway-api-key'] = key;
  const res = await fetch(`${stack.controlPlane.httpUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  stack = await startStack({ workers: 0 });
});
afterAll(async () => stack?.close());

describe('GraphQL without credentials', () => {
  it('serves the one public operation, accepting an invite with its token', async () => {
    const invite = await fetch(`${stack.controlPlane.httpUrl}/v1/admin/users/invites`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': stack.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'new.person@example.com', role: 'member', workspaces: [{ id: 'ws-default', role: 'member' }], workspace_api_key_details: { scopes: ['completions.write'] } }),
    });
    const link = ((await invite.json()) as { invite_link: string }).invite_link;
    const token = new URL(link, 'http://x').searchParams.get('token');
    const r = await gql(
      'mutation($t: String!) { acceptInvite(input: { token: $t, first_name: "New" }) { __typename ... on AcceptedInvite { user_id api_keys { key } } } }',
      { t: token },
    );
    expect(r.status).toBe(200);
    expect(r.body.data.acceptInvite.__typename).toBe('AcceptedInvite');
    expect(r.body.data.acceptInvite.api_keys[0].key).toMatch(/^[A-Za-z0-9]{40,}$/);
  });

  it('answers 401 for everything else, queries and mutations alike', async () => {
    const q = await gql('{ me { organisation_id } }');
    expect(q.status).toBe(401);
    expect(q.body.errors[0].extensions.code).toBe('invalid_api_key');
    const m = await gql('mutation { createApiKey(sub_type: "service", input: { name: "x", scopes: [] }) { __typename ... on GatewayError { status code } } }');
    expect(m.body.data.createApiKey).toEqual({ __typename: 'GatewayError', status: 401, code: 'invalid_api_key' });
    const bad = await gql('{ me { organisation_id } }', {}, 'Z'.repeat(48));
    expect(bad.status).toBe(401);
  });
});
