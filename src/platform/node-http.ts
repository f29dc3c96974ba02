// Node http <-> web-standard Request/Response, shared by the control plane and the worker's Node runtime.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

export function toWebRequest(req: IncomingMessage, res: ServerResponse, origin: string): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  const controller = new AbortController();
  // The caller went away before the answer was complete: abort upstream work.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: controller.signal };
  if (hasBody) {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  return new Request(origin + (req.url ?? '/'), init);
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') headers[name] = response.headers.getSetCookie();
    else headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  res.once('close', onClose);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve));
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
}

export const remoteAddress = (req: IncomingMessage): string | null => req.socket.remoteAddress ?? null;
