// The control plane's REST and GraphQL APIs as tests call them: the admin key by default, `null`
// for no key at all. Thunks, because the stack starts in beforeAll.

export interface ApiAnswer {
  status: number;
  body: any;
}

async function rest(base: string, method: string, path: string, body: unknown, key: string | null): Promise<ApiAnswer & { text: string }> {
  const headers: Record<string, string> = {};
  if (key) headers['x-gateway-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** `{status, body}` (tests compare whole answers). */
export function restCall(base: () => string, defaultKey: () => string) {
  return async (method: string, path: string, body?: unknown, key: string | null = defaultKey()): Promise<ApiAnswer> => {
    const { status, body: parsed } = await rest(base(), method, path, body, key);
    return { status, body: parsed };
  };
}

/** `{status, body, text}`: the raw answer too (tests that look for secrets in it). */
export function restCallWithText(base: () => string, defaultKey: () => string) {
  return (method: string, path: string, body?: unknown, key: string | null = defaultKey()) => rest(base(), method, path, body, key);
}

export function graphqlCall(base: () => string, defaultKey: () => string) {
  return async (query: string, variables: Record<string, unknown> = {}, key: string | null = defaultKey()): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key) headers['x-gateway-api-key'] = key;
    const res = await fetch(`${base()}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    return { status: res.status, body: await res.json() };
  };
}
