// streamGenerateContent?alt=sse -> OpenAI chat.completion.chunk SSE. Each event is a whole
// GenerateContentResponse holding the new parts; usageMetadata is cumulative, the last one wins.
import type { StreamTranslator, TokenCount } from '../contract.ts';
import { toolCallId } from './gemini-request.ts';
import { geminiFinishReason, geminiUsage } from './gemini-response.ts';
import { asArray, asRecord, asString, ChunkWriter, DONE, errorTypeFor, randomId, type FinishReason } from '../shared/openai-chat.ts';
import { SseParser } from './sse-parser.ts';

interface CandidateState {
  started: boolean;
  toolCalls: number;
  finish: FinishReason | null;
}

export class GeminiStreamTranslator implements StreamTranslator {
  private readonly parser = new SseParser();
  private readonly writer: ChunkWriter;
  private readonly candidates = new Map<number, CandidateState>();
  private tokens: TokenCount | null = null;
  private blocked = false;
  private ended = false;

  constructor(model: string, nowMs: number) {
    this.writer = new ChunkWriter(model, nowMs);
  }

  get usage(): TokenCount | null {
    return this.tokens;
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
    let out = this.parser
      .end()
      .map((e) => this.event(e.data))
      .join('');
    if (this.candidates.size === 0) this.candidates.set(0, { started: false, toolCalls: 0, finish: this.blocked ? 'content_filter' : null });
    // Usage covers the whole answer: it rides on the last finish chunk only.
    const last = [...this.candidates.keys()].pop();
    for (const [index, state] of this.candidates) {
      out += this.writer.finish(state.finish ?? (state.toolCalls > 0 ? 'tool_calls' : 'stop'), index === last ? this.tokens : null, index);
    }
    return out + DONE;
  }

  private state(index: number): CandidateState {
    let state = this.candidates.get(index);
    if (!state) {
      state = { started: false, toolCalls: 0, finish: null };
      this.candidates.set(index, state);
    }
    return state;
  }

  private event(data: string): string {
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      return '';
    }
    const res = asRecord(json);
    const err = asRecord(res.error);
    if (Object.keys(err).length > 0) {
      const code = typeof err.code === 'number' ? err.code : 500;
      return this.writer.error(asString(err.message) ?? 'Upstream stream error', errorTypeFor(code), asString(err.status) ?? null);
    }
    this.tokens = geminiUsage(json) ?? this.tokens;
    if (asString(asRecord(res.promptFeedback).blockReason)) this.blocked = true;
    let out = '';
    asArray(res.candidates).forEach((raw, i) => {
      const candidate = asRecord(raw);
      const index = typeof candidate.index === 'number' ? candidate.index : i;
      const state = this.state(index);
      for (const rawPart of asArray(asRecord(candidate.content).parts)) {
        const part = asRecord(rawPart);
        if (part.thought === true) continue;
        const delta: Record<string, unknown> = state.started ? {} : { role: 'assistant' };
        if (typeof part.text === 'string') {
          delta.content = part.text;
        } else if (typeof asRecord(part.functionCall).name === 'string') {
          const call = asRecord(part.functionCall);
          // Gemini sends a call whole: one delta carries its id, name and all arguments.
          delta.tool_calls = [
            {
              index: state.toolCalls++,
              id: toolCallId(asString(call.id) ?? randomId('call_'), part.thoughtSignature),
              type: 'function',
              function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
            },
          ];
        } else {
          continue;
        }
        state.started = true;
        out += this.writer.delta(delta, index);
      }
      if (candidate.finishReason !== undefined && candidate.finishReason !== 'FINISH_REASON_UNSPECIFIED') {
        state.finish = geminiFinishReason(candidate.finishReason, state.toolCalls > 0);
      }
    });
    return out;
  }
}
