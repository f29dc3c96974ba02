// ConverseStream's binary event stream -> OpenAI chat.completion.chunk SSE
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html).
// Each message's `:event-type` header names the event; its payload is the event's JSON.
import type { StreamTranslator, TokenCount } from '../contract.ts';
import { converseFinishReason, converseUsage } from './converse-response.ts';
import { EventStreamDecoder, EventStreamError, type EventMessage } from './event-stream.ts';
import { asRecord, asString, ChunkWriter, DONE, randomId, type FinishReason } from '../shared/openai-chat.ts';

const utf8 = new TextDecoder();

export function messagePayload(message: EventMessage): Record<string, unknown> {
  try {
    return asRecord(JSON.parse(utf8.decode(message.payload)));
  } catch {
    return {};
  }
}

/** An exception frame (`:message-type` exception or error) as a message, else null. */
export function streamException(message: EventMessage): { name: string; message: string } | null {
  const type = message.headers[':message-type'];
  if (type === 'exception') {
    const name = String(message.headers[':exception-type'] ?? 'exception');
    return { name, message: asString(messagePayload(message).message) ?? name };
  }
  if (type === 'error') {
    const name = String(message.headers[':error-code'] ?? 'error');
    return { name, message: String(message.headers[':error-message'] ?? name) };
  }
  return null;
}

/** HTTP-like status of a stream exception, for the error type. */
export const exceptionStatus = (name: string): number =>
  /throttl/i.test(name) ? 429 : /validation/i.test(name) ? 400 : /unavailable/i.test(name) ? 503 : 500;

export class ConverseStreamTranslator implements StreamTranslator {
  private readonly decoder = new EventStreamDecoder();
  private readonly writer: ChunkWriter;
  /** contentBlockIndex -> OpenAI tool_calls index. */
  private readonly toolIndex = new Map<number, number>();
  private started = false;
  private finishReason: FinishReason | null = null;
  private tokens: TokenCount | null = null;
  private failed = false;
  private ended = false;

  constructor(model: string, nowMs: number) {
    this.writer = new ChunkWriter(model, nowMs);
  }

  get usage(): TokenCount | null {
    return this.tokens;
  }

  push(chunk: Uint8Array): string {
    if (this.failed) return '';
    let messages: EventMessage[];
    try {
      messages = this.decoder.push(chunk);
    } catch (err) {
      if (!(err instanceof EventStreamError)) throw err;
      this.failed = true;
      return this.writer.error(`Bedrock stream could not be decoded: ${err.message}`, 'upstream_error', 'invalid_event_stream');
    }
    return messages.map((m) => this.message(m)).join('');
  }

  end(): string {
    if (this.ended) return '';
    this.ended = true;
    let out = '';
    if (!this.failed && this.decoder.pending > 0) out += this.writer.error('Bedrock stream ended inside a message.', 'upstream_error', 'incomplete_event_stream');
    out += this.writer.finish(this.finishReason ?? (this.toolIndex.size > 0 ? 'tool_calls' : 'stop'), this.tokens);
    return out + DONE;
  }

  private delta(delta: Record<string, unknown>): string {
    if (!this.started) {
      this.started = true;
      delta = { role: 'assistant', ...delta };
    }
    return this.writer.delta(delta);
  }

  private message(message: EventMessage): string {
    const exception = streamException(message);
    if (exception) return this.writer.error(exception.message, exceptionStatus(exception.name) === 429 ? 'rate_limit_error' : 'upstream_error', exception.name);
    const payload = messagePayload(message);
    const block = typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : 0;
    switch (message.headers[':event-type']) {
      case 'messageStart':
        return this.started ? '' : this.delta({ content: '' });
      case 'contentBlockStart': {
        const use = asRecord(asRecord(payload.start).toolUse);
        if (typeof use.name !== 'string') return '';
        const index = this.toolIndex.size;
        this.toolIndex.set(block, index);
        return this.delta({ tool_calls: [{ index, id: asString(use.toolUseId) ?? randomId('call_'), type: 'function', function: { name: use.name, arguments: '' } }] });
      }
      case 'contentBlockDelta': {
        const delta = asRecord(payload.delta);
        if (typeof delta.text === 'string') return this.delta({ content: delta.text });
        const use = asRecord(delta.toolUse);
        const index = this.toolIndex.get(block);
        if (typeof use.input === 'string' && index !== undefined) return this.delta({ tool_calls: [{ index, function: { arguments: use.input } }] });
        return '';
      }
      case 'messageStop':
        this.finishReason = converseFinishReason(payload.stopReason);
        return '';
      case 'metadata':
        this.tokens = converseUsage(payload) ?? this.tokens;
        return '';
      default:
        return '';
    }
  }
}
