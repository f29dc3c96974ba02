// Providers that speak OpenAI's API: one table row each (id as the reference gateway spells it,
// default base URL, how the key is sent). Paths after the base are OpenAI's.

export interface CompatibleProvider {
  id: string;
  baseUrl: string;
  /** Header carrying the key: `authorization` sends `Bearer <key>`; any other name gets the bare key. */
  authHeader?: string;
  /** Local servers run without a key. */
  keyOptional?: boolean;
  /** Other spellings that name the same provider (control-plane enum, older ids). */
  aliases?: string[];
}

export const COMPATIBLE_PROVIDERS: readonly CompatibleProvider[] = [
  { id: 'groq', baseUrl: 'https://api.groq.com/openai/v1' },
  { id: 'together-ai', baseUrl: 'https://api.together.xyz/v1' },
  { id: 'fireworks-ai', baseUrl: 'https://api.fireworks.ai/inference/v1' },
  { id: 'deepseek', baseUrl: 'https://api.deepseek.com/v1' },
  { id: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1' },
  { id: 'perplexity-ai', baseUrl: 'https://api.perplexity.ai' },
  { id: 'x-ai', baseUrl: 'https://api.x.ai/v1' },
  { id: 'ollama', baseUrl: 'http://localhost:11434/v1', keyOptional: true },
  { id: 'vllm', baseUrl: 'http://localhost:8000/v1', keyOptional: true },
  { id: 'lm-studio', baseUrl: 'http://localhost:1234/v1', keyOptional: true },
  { id: 'deepinfra', baseUrl: 'https://api.deepinfra.com/v1/openai' },
  { id: 'cerebras', baseUrl: 'https://api.cerebras.ai/v1' },
  { id: 'sambanova', baseUrl: 'https://api.sambanova.ai/v1' },
  { id: 'nebius', baseUrl: 'https://api.studio.nebius.ai/v1' },
  { id: 'novita-ai', baseUrl: 'https://api.novita.ai/v3/openai' },
  { id: 'nvidia-nim', baseUrl: 'https://integrate.api.nvidia.com/v1', aliases: ['nvidia'] },
  { id: 'hyperbolic', baseUrl: 'https://api.hyperbolic.xyz/v1' },
  { id: 'lambda', baseUrl: 'https://api.lambda.ai/v1' },
  { id: 'ai21', baseUrl: 'https://api.ai21.com/studio/v1' },
  { id: 'jina', baseUrl: 'https://api.jina.ai/v1' },
  { id: 'voyage', baseUrl: 'https://api.voyageai.com/v1' },
  { id: 'huggingface', baseUrl: 'https://router.huggingface.co/v1', aliases: ['hugging-face'] },
  { id: 'dashscope', baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1' },
  { id: 'moonshot', baseUrl: 'https://api.moonshot.cn/v1' },
  { id: 'zhipu', baseUrl: 'https://open.bigmodel.cn/api/paas/v4' },
  { id: 'siliconflow', baseUrl: 'https://api.siliconflow.cn/v1' },
  { id: 'upstage', baseUrl: 'https://api.upstage.ai/v1/solar' },
  { id: 'anyscale', baseUrl: 'https://api.endpoints.anyscale.com/v1' },
  { id: 'monsterapi', baseUrl: 'https://llm.monsterapi.ai/v1' },
  { id: 'lingyi', baseUrl: 'https://api.lingyiwanwu.com/v1' },
  { id: 'github', baseUrl: 'https://models.inference.ai.azure.com' },
  { id: 'inference-net', baseUrl: 'https://api.inference.net/v1' },
  { id: 'featherless-ai', baseUrl: 'https://api.featherless.ai/v1' },
  { id: 'kluster-ai', baseUrl: 'https://api.kluster.ai/v1' },
  { id: 'nscale', baseUrl: 'https://inference.api.nscale.com/v1' },
  { id: 'stepfun', baseUrl: 'https://api.stepfun.com/v1' },
  { id: 'minimax', baseUrl: 'https://api.minimax.io/v1' },
];
