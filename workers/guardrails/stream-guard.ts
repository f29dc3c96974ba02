// Output guardrails on streams work on the real streamed text (the reference checks an empty
// string). Two modes: `buffer` holds the stream until the checks pass (the caller then gets a
// plain 446 or the stream); `tail` relays chunks live, assembles the text, and holds back only
// the final `data: [DONE]` until the checks ran, ending with an error event when they deny.

export type StreamGuardMode = 'buffer' | 'tail';

const DONE = 'data: [DONE]';

/** Assembles the text of an OpenAI chat/completions SSE stream (or Anthropic's content deltas). */
export class SseTextCollector {
  private readonly decoder = new TextDecoder();
  private pending = '';
  private readonly parts: string[] = [];
  sawDone = false;

  /** Returns the SSE text to relay now: everything except a `[DONE]` event, which is held. */
  push(chunk: Uint8Array): string {
    this.pending += this.decoder.decode(chunk, { stream: true });
    let out = '';
    for (;;) {
      const end = this.pending.search(/\r?\n\r?\n/);
      if (end < 0) break;
      const sep = this.pending.slice(end).match(/^\r?\n\r?\n/)![0];
      const event = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + sep.length);
      if (event.trim() === DONE) {
        this.sawDone = true;
        continue;
      }
      this.read(event);
      out += event + sep;
    }
    return out;
  }

  /** What is left at the end of the stream (an unterminated last event). */
  flush(): string {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
    if (rest.trim() === DONE) {
      this.sawDone = true;
      return '';
    }
    if (rest.trim()) this.read(rest);
    return rest;
  }

  get text(): string {
    return this.parts.join('');
  }

  private read(event: string): void {
    for (const line of event.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      try {
        const j = JSON.parse(line.slice(5).trim()) as { choices?: { delta?: { content?: unknown }; text?: unknown }[]; delta?: { text?: unknown } };
        for (const c of j.choices ?? []) {
          if (typeof c.delta?.content === 'string') this.parts.push(c.delta.content);
          else if (typeof c.text === 'string') this.parts.push(c.text);
        }
        if (typeof j.delta?.text === 'string') this.parts.push(j.delta.text);
      } catch {
        /* not JSON: nothing to collect */
      }
    }
  }
}

/** The events that end a guarded stream: an error event when denied, then `[DONE]` when the provider sent one. */
export function streamEnding(verdict: { denied: boolean; failed: boolean; hookResults: unknown }, sawDone: boolean): string {
  let out = '';
  if (verdict.denied) {
    out += `data: ${JSON.stringify({ error: { message: 'The output guardrail checks failed for the streamed answer.', type: 'hooks_failed', param: null, code: 'hooks_failed' }, hook_results: verdict.hookResults })}\n\n`;
  } else if (verdict.failed) {
    out += `data: ${JSON.stringify({ hook_results: verdict.hookResults })}\n\n`;
  }
  if (sawDone) out += `${DONE}\n\n`;
  return out;
}
