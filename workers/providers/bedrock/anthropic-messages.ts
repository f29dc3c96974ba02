// Anthropic's own Messages API on Bedrock: the caller's body goes to InvokeModel
// (`/model/{id}/invoke`, or `/invoke-with-response-stream`) with the model moved to the URL and
// `anthropic_version: bedrock-2023-05-31` in the body; the answer is already Anthropic's shape.
// (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html)
import type { StreamTranslator, TokenCount } from '../contract.ts';
import { exceptionStatus, messagePayload, streamException } from './converse-stream.ts';
import { EventStreamDecoder, EventStreamError, type EventMessage } from './event-stream.ts';
import { asNumber, asRecord, asString } from '../shared/openai-chat.ts';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

export function invokeAnthropicBody(body: Record<string, unknown>): Record<string, unknown> {
  // InvokeModel rejects keys it does not know: the model is in the URL, streaming in the action.
  const { model: _model, stream: _stream, ...rest } = body;
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
}

/** Anthropic usage; cache reads and writes are prompt tokens too. */
export function anthropicUsage(usageValue: unknown): TokenCount | null {
  const usage = asRecord(usageValue);
  if (Object.keys(usage).length === 0) return null;
  const cacheRead = asNumber(usage.cache_read_input_tokens);
  const prompt = asNumber(usage.input_tokens) + cacheRead + asNumber(usage.cache_creation_input_tokens);
  const completion = asNumber(usage.output_tokens);
  const tokens: TokenCount = { prompt, completion, total: prompt + completion };
  if (usage.cache_read_input_tokens !== undefined) tokens.cachedPrompt = cacheRead;
  return tokens;
}

function base64Text(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

const sse = (event: unknown): string => `event: ${String(asRecord(event).type)}\ndata: ${JSON.stringify(event)}\n\n`;

const errorEvent = (type: string, message: string): string => sse({ type: 'error', error: { type, message } });

/**
 * invoke-with-response-stream -> Anthropic's SSE. Each `chunk` event's payload is
 * `{"bytes": base64(<Anthropic stream event JSON>)}`; Bedrock adds its invocation metrics to
 * the last one, which are dropped. The output is Anthropic SSE (no OpenAI `[DONE]`).
 */
export class AnthropicEventStreamTranslator implements StreamTranslator {
  private readonly decoder = new EventStreamDecoder();
  private input: TokenCount | null = null;
  private output = 0;
  private failed = false;

  get usage(): TokenCount | null {
    if (!this.input) return null;
    return { ...this.input, completion: this.output, total: this.input.prompt + this.output };
  }

  push(chunk: Uint8Array): string {
    if (this.failed) return '';
    let messages: EventMessage[];
    try {
      messages = this.decoder.push(chunk);
    } catch (err) {
      if (!(err instanceof EventStreamError)) throw err;
      this.failed = true;
      return errorEvent('api_error', `Bedrock stream could not be decoded: ${err.message}`);
    }
    return messages.map((m) => this.message(m)).join('');
  }

  end(): string {
    if (!this.failed && this.decoder.pending > 0) return errorEvent('api_error', 'Bedrock stream ended inside a message.');
    return '';
  }

  private message(message: EventMessage): string {
    const exception = streamException(message);
    if (exception) {
      const status = exceptionStatus(exception.name);
      return errorEvent(status === 429 ? 'rate_limit_error' : status === 503 ? 'overloaded_error' : 'api_error', exception.message);
    }
    if (message.headers[':event-type'] !== 'chunk') return '';
    const bytes = asString(messagePayload(message).bytes);
    if (!bytes) return '';
    let event: Record<string, unknown>;
    try {
      event = asRecord(JSON.parse(base64Text(bytes)));
    } catch {
      return '';
    }
    delete event['amazon-bedrock-invocationMetrics'];
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
    return sse(event);
  }
}
