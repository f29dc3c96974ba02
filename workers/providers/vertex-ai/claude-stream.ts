// Claude's SSE from streamRawPredict (Anthropic's stream events), two ways:
// - for chat.completions, translated to OpenAI chat.completion.chunk SSE;
// - for messages, relayed byte-for-byte while the usage is read on the side.
import type { StreamTranslator, TokenCount } from '../contract.ts';
import { asRecord, asString, ChunkWriter, DONE, errorTypeFor, randomId, type FinishReason } from '../shared/openai-chat.ts';
import { SseParser } from '../google/sse-parser.ts';
import { anthropicUsage, claudeFinishReason } from './claude-chat.ts';

/** Usage from message_start (input, cache) and message_delta (running output count). */
class ClaudeUsage {
  private input: TokenCount | null = null;
  private output = 0;

  see(event: Record<string, unknown>): void {
    if (event.type === 'message_start') {
      const usage = anthropicUsage(asRecord(event.message).usage);
      if (usage) {
        this.input = usage;
        this.output = usage.completion;
      }
    } else if (event.type === 'message_delta') {
      const out = asRecord(event.usage).output_tokens;
      if (typeof out === 'number') this.output = out;
    }
  }

  get tokens(): TokenCount | null {
    if (!this.input) return null;
    return { ...this.input, completion: this.output, total: this.input.prompt + this.output };
  }
}

function parse(data: string): Record<string, unknown> | null {
  try {
    return asRecord(JSON.parse(data));
  } catch {
    return null;
  }
}

export class ClaudeChatStreamTranslator implements StreamTranslator {
  private readonly parser = new SseParser();
  private readonly writer: ChunkWriter;
  private readonly counter = new ClaudeUsage();
  /** content block index -> OpenAI tool_calls index. */
  private readonly toolIndex = new Map<number, number>();
  private started = false;
  private finishReason: FinishReason | null = null;
  private ended = false;

  constructor(model: string, nowMs: number) {
    this.writer = new ChunkWriter(model, nowMs);
  }

  get usage(): TokenCount | null {
    return this.counter.tokens;
  }

  push(chunk: Uint8Array): string {
    return this.parser
      .push(chunk)
      .map((e) => this.event(e.data))
      .join('');
  }

  end(): string {
    if (this.ended) return '';
    this.ended = true;
    const rest = this.parser
      .end()
      .map((e) => this.event(e.data))
      .join('');
    return rest + this.writer.finish(this.finishReason ?? (this.toolIndex.size > 0 ? 'tool_calls' : 'stop'), this.usage) + DONE;
  }

  private delta(delta: Record<string, unknown>): string {
    if (!this.started) {
      this.started = true;
      delta = { role: 'assistant', ...delta };
    }
    return this.writer.delta(delta);
  }

  private event(data: string): string {
    const event = parse(data);
    if (!event) return '';
    this.counter.see(event);
    const index = typeof event.index === 'number' ? event.index : 0;
    switch (event.type) {
      case 'message_start':
        return this.started ? '' : this.delta({ content: '' });
      case 'content_block_start': {
        const block = asRecord(event.content_block);
        if (block.type === 'text' && asString(block.text)) return this.delta({ content: block.text });
        if (block.type !== 'tool_use') return '';
        const toolIndex = this.toolIndex.size;
        this.toolIndex.set(index, toolIndex);
        return this.delta({ tool_calls: [{ index: toolIndex, id: asString(block.id) ?? randomId('call_'), type: 'function', function: { name: asString(block.name) ?? '', arguments: '' } }] });
      }
      case 'content_block_delta': {
        const delta = asRecord(event.delta);
        if (delta.type === 'text_delta') return this.delta({ content: asString(delta.text) ?? '' });
        const toolIndex = this.toolIndex.get(index);
        if (delta.type === 'input_json_delta' && toolIndex !== undefined) {
          return this.delta({ tool_calls: [{ index: toolIndex, function: { arguments: asString(delta.partial_json) ?? '' } }] });
        }
        return '';
      }
      case 'message_delta': {
        const reason = asRecord(event.delta).stop_reason;
        if (reason) this.finishReason = claudeFinishReason(reason);
        return '';
      }
      case 'error': {
        const err = asRecord(event.error);
        const type = asString(err.type) ?? 'api_error';
        const status = type === 'rate_limit_error' ? 429 : type === 'overloaded_error' ? 503 : 500;
        return this.writer.error(asString(err.message) ?? 'Upstream stream error', errorTypeFor(status), type);
      }
      default:
        return '';
    }
  }
}

/** `messages` on Vertex: Claude's SSE is already the caller's format; only the usage is read. */
export class ClaudeRelayTranslator implements StreamTranslator {
  private readonly text = new TextDecoder();
  private readonly parser = new SseParser();
  private readonly counter = new ClaudeUsage();

  get usage(): TokenCount | null {
    return this.counter.tokens;
  }

  push(chunk: Uint8Array): string {
    for (const e of this.parser.push(chunk)) this.see(e.data);
    return this.text.decode(chunk, { stream: true });
  }

  /** Anthropic streams end with message_stop; no OpenAI `[DONE]` is added. */
  end(): string {
    for (const e of this.parser.end()) this.see(e.data);
    return this.text.decode();
  }

  private see(data: string): void {
    const event = parse(data);
    if (event) this.counter.see(event);
  }
}
