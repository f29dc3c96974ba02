// The text a check looks at (reference: getText): the last message of the request, the first
// choice of the answer (or the streamed text assembled).
import type { CheckContext } from './types.ts';

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

export function requestText(json: Record<string, unknown>): string {
  const messages = json.messages;
  if (Array.isArray(messages) && messages.length) return contentText((messages[messages.length - 1] as { content?: unknown })?.content);
  if (typeof json.prompt === 'string') return json.prompt;
  if (Array.isArray(json.prompt)) return json.prompt.filter((p) => typeof p === 'string').join('\n');
  if (typeof json.input === 'string') return json.input;
  if (Array.isArray(json.input)) return json.input.map((i) => (typeof i === 'string' ? i : contentText((i as { content?: unknown })?.content))).join('\n');
  return '';
}

export function responseText(json: unknown): string {
  if (!json || typeof json !== 'object') return '';
  const j = json as Record<string, unknown>;
  const choice = Array.isArray(j.choices) ? (j.choices[0] as Record<string, unknown> | undefined) : undefined;
  if (choice) {
    const message = choice.message as { content?: unknown } | undefined;
    if (message) return contentText(message.content);
    if (typeof choice.text === 'string') return choice.text;
  }
  if (Array.isArray(j.content)) return contentText(j.content); // Anthropic messages
  if (typeof j.output_text === 'string') return j.output_text; // responses
  return '';
}

export function textOf(ctx: CheckContext): string {
  if (ctx.event === 'afterRequestHook') return ctx.response?.text ?? responseText(ctx.response?.json);
  return requestText(ctx.request.json);
}
