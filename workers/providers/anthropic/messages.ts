// The `messages` endpoint: the caller speaks Anthropic's own API. The body goes upstream as it
// came (with the routed model), answers and errors are relayed unchanged; streams are passed
// through byte for byte while their usage is read.
import type { CallContext, EndpointAdapter, StreamTranslator, TokenCount } from '../contract.ts';
import { obj, type Json } from '../shared/json.ts';
import { messagesCall } from './request-chat.ts';
import { SseReader } from '../shared/sse.ts';
import { anthropicUsage, mergeUsage, tokenCount, type AnthropicUsage } from './usage.ts';

export class AnthropicPassThrough implements StreamTranslator {
  private readonly decoder = new TextDecoder();
  private readonly reader = new SseReader();
  private tokens: AnthropicUsage | null = null;

  get usage(): TokenCount | null {
    return this.tokens ? tokenCount(this.tokens) : null;
  }

  push(chunk: Uint8Array): string {
    this.read(this.reader.push(chunk));
    return this.decoder.decode(chunk, { stream: true });
  }

  end(): string {
    this.read(this.reader.end());
    return this.decoder.decode();
  }

  private read(events: { data: string }[]): void {
    for (const e of events) {
      let ev: Json;
      try {
        ev = obj(JSON.parse(e.data));
      } catch {
        continue;
      }
      if (ev.type === 'message_start') this.tokens = mergeUsage(this.tokens ?? {}, obj(ev.message).usage);
      else if (ev.type === 'message_delta') this.tokens = mergeUsage(this.tokens ?? {}, ev.usage);
    }
  }
}

export const messagesEndpoint: EndpointAdapter = {
  request: (body: Json, ctx: CallContext) => messagesCall({ ...body, model: ctx.model }, ctx),
  stream: () => new AnthropicPassThrough(),
  usage: anthropicUsage,
};
