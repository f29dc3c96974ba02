// Mistral's stream is OpenAI SSE already; each chunk is normalised (finish reasons, content
// lists) and its usage read (Mistral puts usage on the last chunk without being asked).
import type { StreamTranslator, TokenCount } from '../contract.ts';
import { openAIError } from './errors.ts';
import { arr, isObj, obj, type Json } from '../shared/json.ts';
import { SSE_DONE, SseReader, sseData } from '../shared/sse.ts';
import { mistralUsage, normalizeChoice } from './response-chat.ts';

export class MistralStreamTranslator implements StreamTranslator {
  private readonly reader = new SseReader();
  private tokens: TokenCount | null = null;

  get usage(): TokenCount | null {
    return this.tokens;
  }

  push(chunk: Uint8Array): string {
    return this.reader.push(chunk).map((e) => this.frame(e.data)).join('');
  }

  end(): string {
    return this.reader.end().map((e) => this.frame(e.data)).join('') + SSE_DONE;
  }

  private frame(data: string): string {
    if (data.trim() === '[DONE]') return ''; // end() sends the one [DONE]
    let chunk: Json;
    try {
      chunk = obj(JSON.parse(data));
    } catch {
      return '';
    }
    if (chunk.object === 'error' || (isObj(chunk.error) && chunk.choices === undefined)) return sseData(openAIError(500, chunk));
    this.tokens = mistralUsage(chunk) ?? this.tokens;
    return sseData({ ...chunk, object: 'chat.completion.chunk', choices: arr(chunk.choices).map((c) => normalizeChoice(c, 'delta')) });
  }
}
