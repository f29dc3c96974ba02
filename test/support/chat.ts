// One chat completion through a worker to the mock provider, as the tests and benches send it.
export interface ChatOutcome {
  status: number;
  code: string | null;
}

export async function chatThrough(workerUrl: string, key: string, providerBaseUrl: string): Promise<ChatOutcome> {
  const res = await fetch(`${workerUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'x-gateway-api-key': key,
      'x-gateway-provider': 'openai',
      authorization: 'Bearer sk-provider',
      'x-gateway-custom-host': providerBaseUrl,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = (await res.json().catch(() => null)) as { error?: { code?: string } } | null;
  return { status: res.status, code: body?.error?.code ?? null };
}
