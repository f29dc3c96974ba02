// Anthropic Messages SSE -> OpenAI chat.completion.chunk SSE (or text_completion chunks for
// `completions`). Events: message_start, content_block_start/delta/stop, message_delta,
// message_stop, ping, error (docs: "Streaming Messages").
import type { CallContext, StreamTranslator, TokenCount } from '../contract.ts';
import { openAIError } from './errors.ts';
import { finishReason } from './finish-reason.ts';
import { obj, str, type Json } from '../shared/json.ts';
import { SSE_DONE, SseReader, sseData } from '../shared/sse.ts';
import { mergeUsage, openAIUsage, tokenCount, type AnthropicUsage } from './usage.ts';

type Shape = 'chat' | 'text';

export class AnthropicStreamTranslator implements StreamTranslator {
  private readonly reader = new SseReader();
  private id = '';
  private model: string;
  private readonly created: number;
  private tokens: AnthropicUsage | null = null;
  /** Anthropic content-block index -> OpenAI tool_calls index. */
  private readonly toolIndex = new Map<number, number>();
  private usageSent = false;

  constructor(
    ctx: CallContext,
    private readonly shape: Shape = 'chat',
  ) {
    this.model = ctx.model;
    this.created = Math.floor(ctx.now() / 1000);
  }

  get usage(): TokenCount | null {
    return this.tokens ? tokenCount(this.tokens) : null;
  }

  push(chunk: Uint8Array): string {
    return this.reader.push(chunk).map((e) => this.event(e.data)).join('');
  }

  end(): string {
    return this.reader.end().map((e) => this.event(e.data)).join('') + SSE_DONE;
  }

  private chunk(choice: Json | null, extra: Json = {}): string {
    const object = this.shape === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    const choices = choice ? [{ index: 0, ...choice, logprobs: null }] : [];
    return sseData({ id: this.id, object, created: this.created, model: this.model, choices, ...extra });
  }

  private delta(delta: Json, finish: string | null = null): string {
    if (this.shape === 'text') return this.chunk({ text: str(delta.content) ?? '', finish_reason: finish });
    return this.chunk({ delta, finish_reason: finish });
  }

  private event(data: string): string {
    let ev: Json;
    try {
      ev = obj(JSON.parse(data));
    } catch {
      return '';
    }
    switch (ev.type) {
      case 'message_start': {
        const message = obj(ev.message);
        this.id = str(message.id) ?? this.id;
        this.model = str(message.model) ?? this.model;
        this.tokens = mergeUsage(this.tokens ?? {}, message.usage);
        return this.shape === 'chat' ? this.delta({ role: 'assistant', content: '' }) : '';
      }
      case 'content_block_start': {
        const block = obj(ev.content_block);
        const index = typeof ev.index === 'number' ? ev.index : 0;
        if (block.type === 'text' && str(block.text)) return this.delta({ content: block.text });
        if (block.type === 'tool_use' && this.shape === 'chat') {
          const n = this.toolIndex.size;
          this.toolIndex.set(index, n);
          return this.delta({
            tool_calls: [{ index: n, id: str(block.id) ?? '', type: 'function', function: { name: str(block.name) ?? '', arguments: '' } }],
          });
        }
        return '';
      }
      case 'content_block_delta': {
        const delta = obj(ev.delta);
        if (delta.type === 'text_delta') return this.delta({ content: str(delta.text) ?? '' });
        if (delta.type === 'input_json_delta') {
          const n = this.toolIndex.get(typeof ev.index === 'number' ? ev.index : -1);
          const partial = str(delta.partial_json) ?? '';
          if (n === undefined || partial === '') return '';
          return this.delta({ tool_calls: [{ index: n, function: { arguments: partial } }] });
        }
        return ''; // thinking, signature and citation deltas have no OpenAI chunk
      }
      case 'message_delta': {
        this.tokens = mergeUsage(this.tokens ?? {}, ev.usage);
        const stop = finishReason(obj(ev.delta).stop_reason);
        return stop ? this.delta({}, stop) : '';
      }
      case 'message_stop':
        return this.usageChunk();
      case 'error':
        return sseData(openAIError(500, ev));
      default:
        return ''; // ping, content_block_stop, and event types added later
    }
  }

  /** The final chunk carries the usage, as OpenAI's `stream_options.include_usage` does. */
  private usageChunk(): string {
    if (this.usageSent || !this.tokens) return '';
    this.usageSent = true;
    return this.chunk(null, { usage: openAIUsage(tokenCount(this.tokens)) });
  }
}
