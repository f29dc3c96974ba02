// What the pipeline does with an adapter, for round-trip tests: request() + authHeaders(), real
// fetch to the provider's mock, and a stream fed through the adapter's translator.
import type { CallContext, EndpointAdapter, ProviderAdapter } from '../../../../workers/providers/contract.ts';

export async function sendCall(adapter: ProviderAdapter, ep: EndpointAdapter, body: Record<string, unknown>, c: CallContext): Promise<Response> {
  const call = await ep.request(body, c);
  const headers = { ...(await adapter.authHeaders(c)), ...call.headers };
  const payload = typeof call.body === 'string' || call.body === null ? call.body : Buffer.from(call.body);
  return fetch(call.url, { method: call.method, headers, body: payload });
}

export async function translateStream(ep: EndpointAdapter, res: Response, c: CallContext): Promise<{ text: string; usage: unknown }> {
  const t = ep.stream!(c);
  let text = '';
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += t.push(value);
  }
  return { text: text + t.end(), usage: t.usage };
}
