// Mutators rewrite every text the model sees or says, not only the text checks read.

type Rewrite = (text: string) => string;

function content(c: unknown, f: Rewrite): unknown {
  if (typeof c === 'string') return f(c);
  if (Array.isArray(c)) return c.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? { ...(p as object), text: f((p as { text: string }).text) } : p));
  return c;
}

export function rewriteRequest(json: Record<string, unknown>, f: Rewrite): Record<string, unknown> {
  const out = { ...json };
  if (Array.isArray(json.messages)) out.messages = json.messages.map((m) => (m && typeof m === 'object' ? { ...(m as object), content: content((m as { content?: unknown }).content, f) } : m));
  if (typeof json.system === 'string') out.system = f(json.system);
  if (typeof json.prompt === 'string') out.prompt = f(json.prompt);
  if (typeof json.input === 'string') out.input = f(json.input);
  else if (Array.isArray(json.input)) out.input = json.input.map((i) => (typeof i === 'string' ? f(i) : i));
  return out;
}

export function rewriteResponse(json: unknown, f: Rewrite): unknown {
  if (!json || typeof json !== 'object') return json;
  const j = json as Record<string, unknown>;
  const out: Record<string, unknown> = { ...j };
  if (Array.isArray(j.choices)) {
    out.choices = j.choices.map((c) => {
      if (!c || typeof c !== 'object') return c;
      const choice = { ...(c as Record<string, unknown>) };
      if (choice.message && typeof choice.message === 'object') choice.message = { ...(choice.message as object), content: content((choice.message as { content?: unknown }).content, f) };
      if (typeof choice.text === 'string') choice.text = f(choice.text);
      return choice;
    });
  }
  if (Array.isArray(j.content)) out.content = content(j.content, f);
  return out;
}
