// Cohere v2 chat SSE (message-start, content-delta, tool-call-start/delta, message-end, ...)
// -> OpenAI chat.completion.chunk SSE with a final usage chunk.
import type { CallContext, StreamTranslator, TokenCount } from '../contract.ts';
import { openAIError } from './errors.ts';
import { finishReason } from './finish-reason.ts';
import { obj, str, type Json } from '../shared/json.ts';
import { SSE_DONE, SseReader, sseData } from '../shared/sse.ts';
import { cohereTokens, openAIUsage } from './usage.ts';

export class CohereStreamTranslator implements StreamTranslator {
  private readonly reader = new SseReader();
  private id = '';
  private readonly model: string;
  private readonly created: number;
  private tokens: TokenCount | null = null;
  /** Cohere tool-call index -> OpenAI tool_calls index. */
  private readonly toolIndex = new Map<number, number>();

  constructor(ctx: CallContext) {
    this.model = ctx.model;
    this.created = Math.floor(ctx.now() / 1000);
  }

  get usage(): TokenCount | null {
    return this.tokens;
  }

  push(chunk: Uint8Array): string {
    return this.reader.push(chunk).map((e) => this.event(e.data)).join('');
  }

  end(): string {
    return this.reader.end().map((e) => this.event(e.data)).join('') + SSE_DONE;
  }

  private chunk(delta: Json | null, finish: string | null = null, extra: Json = {}): string {
    const choices = delta ? [{ index: 0, delta, logprobs: null, finish_reason: finish }] : [];
    return sseData({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices, ...extra });
  }

  private event(data: string): string {
    let ev: Json;
    try {
      ev = obj(JSON.parse(data));
    } catch {
      return '';
    }
    const message = obj(obj(ev.delta).message);
    const index = typeof ev.index === 'number' ? ev.index : 0;
    switch (ev.type) {
      case 'message-start':
        this.id = str(ev.id) ?? this.id;
        return this.chunk({ role: 'assistant', content: '' });
      case 'content-delta': {
        const text = str(obj(message.content).text) ?? '';
        return text ? this.chunk({ content: text }) : '';
      }
      case 'tool-call-start': {
        const call = obj(message.tool_calls);
        const fn = obj(call.function);
        const n = this.toolIndex.size;
        this.toolIndex.set(index, n);
        return this.chunk({
          tool_calls: [{ index: n, id: str(call.id) ?? '', type: 'function', function: { name: str(fn.name) ?? '', arguments: str(fn.arguments) ?? '' } }],
        });
      }
      case 'tool-call-delta': {
        const n = this.toolIndex.get(index);
        const args = str(obj(obj(message.tool_calls).function).arguments) ?? '';
        return n === undefined || args === '' ? '' : this.chunk({ tool_calls: [{ index: n, function: { arguments: args } }] });
      }
      case 'message-end': {
        const delta = obj(ev.delta);
        this.tokens = cohereTokens(delta.usage) ?? this.tokens;
        let out = this.chunk({}, finishReason(delta.finish_reason) ?? 'stop');
        if (this.tokens) out += this.chunk(null, null, { usage: openAIUsage(this.tokens) });
        return out;
      }
      default:
        // An error object in the stream (no `type`) becomes an OpenAI error frame; tool-plan,
        // citation and content-start/end events have no OpenAI counterpart.
        return ev.type === undefined && str(ev.message) ? sseData(openAIError(500, ev)) : '';
    }
  }
}
