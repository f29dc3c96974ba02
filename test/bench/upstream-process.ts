// Mock upstream for the bench: a bare node:http server on 127.0.0.1 answering every request with
// one fixed OpenAI chat.completion (with usage), kept alive. Nothing is recorded.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, runChild, serve } from './child-protocol.ts';

const BODY = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 8, completion_tokens: 9, total_tokens: 17 },
    system_fingerprint: 'fp_bench',
  }),
);
const HEADERS = { 'content-type': 'application/json', 'content-length': String(BODY.length) };

runChild(async () => {
  let served = 0;
  const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      served++;
      res.writeHead(200, HEADERS);
      res.end(BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  announce({ url: `http://127.0.0.1:${port}`, port });
  serve({ served: async () => served }, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
