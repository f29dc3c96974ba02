// Mistral accepts only tool call ids of exactly 9 characters [a-zA-Z0-9]; OpenAI callers send
// ids like `call_abc...`. Other ids are mapped to 9 characters by hashing, so an assistant's
// tool call and the tool message answering it still match (same input, same id).
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const VALID = /^[a-zA-Z0-9]{9}$/;

export async function mistralToolCallId(id: string): Promise<string> {
  if (VALID.test(id)) return id;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(id)));
  let out = '';
  for (let i = 0; i < 9; i++) out += ALPHABET[digest[i]! % ALPHABET.length];
  return out;
}
