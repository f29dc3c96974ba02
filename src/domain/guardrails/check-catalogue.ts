// The guardrail checks the gateway knows and the parameters each takes (control-plane-schemas 2.3
// "Check ids and their parameters"; reference-gateway-behaviour §5 for the `default` plugin's extra
// checks and partner checks). Pure: zod only. Parameters are stored as given (defaults are applied
// where checks run), so an answer shows exactly what was saved.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { forwardHeadersSchema, staticHeadersSchema } from './forward-headers.ts';

const timeout = z.number().int().min(1).max(600_000);
const not = z.boolean();
const nonEmpty = z.string().min(1).max(1024);
const stringList = z.array(nonEmpty).min(1).max(1000);
const threshold = z.number().min(0).max(1);
const operator = z.enum(['any', 'all', 'none']);

const httpUrl = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use http or https' });
  else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not carry credentials (use headers)' });
  else if (isMetadataHost(url.hostname)) ctx.addIssue({ code: 'custom', message: 'must not point to a cloud metadata service' });
});

/**
 * Cloud metadata services (link-local addresses and their host names) are never a check's endpoint.
 * Private addresses stay allowed here: self-hosted webhooks often live on them; the data plane
 * applies its own outbound policy when it calls the URL.
 */
function isMetadataHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (/^169\.254\.\d{1,3}\.\d{1,3}$/.test(h) || /^fe[89ab][0-9a-f]?:/.test(h) || h.startsWith('::ffff:a9fe:') || h === 'fd00:ec2::254') return true;
  return ['metadata', 'metadata.google.internal', 'instance-data', 'metadata.azure.com'].includes(h) || h.endsWith('.metadata.google.internal');
}

const regex = z.string().min(1).max(4096).superRefine((value, ctx) => {
  // `/pattern/flags` or a plain pattern (reference §5, regexReplace).
  const m = /^\/(.*)\/([a-z]*)$/s.exec(value);
  try {
    new RegExp(m ? m[1]! : value, m ? m[2] : undefined);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not a valid regular expression' });
  }
});

export const CODE_FORMATS = [
  'SQL', 'Python', 'TypeScript', 'JavaScript', 'Java', 'C#', 'C++', 'C', 'Ruby', 'PHP', 'Swift', 'Kotlin', 'Go', 'Rust',
  'Scala', 'R', 'Perl', 'Shell', 'HTML', 'CSS', 'XML', 'JSON', 'YAML', 'Markdown', 'Dockerfile',
] as const;

export const REQUEST_TYPES = [
  'complete', 'chatComplete', 'embed', 'rerank', 'moderate', 'proxy', 'imageGenerate', 'createSpeech', 'createTranscription',
  'createTranslation', 'realtime', 'uploadFile', 'listFiles', 'retrieveFile', 'deleteFile', 'retrieveFileContent', 'createBatch',
  'retrieveBatch', 'cancelBatch', 'listBatches', 'getBatchOutput', 'listFinetunes', 'createFinetune', 'retrieveFinetune',
  'cancelFinetune', 'createModelResponse', 'getModelResponse', 'deleteModelResponse', 'listResponseInputItems', 'messages',
] as const;

const MODERATION_CATEGORIES = [
  'hate', 'hate/threatening', 'harassment', 'harassment/threatening', 'self-harm', 'self-harm/intent', 'self-harm/instructions',
  'sexual', 'sexual/minors', 'violence', 'violence/graphic',
] as const;
const PII_CATEGORIES = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'LOCATION_ADDRESS', 'NAME', 'IP_ADDRESS', 'CREDIT_CARD', 'SSN'] as const;
const PILLAR_SCANNERS = ['prompt_injection', 'pii', 'secrets', 'toxic_language', 'invisible_characters'] as const;
const MISTRAL_CATEGORIES = [
  'sexual', 'hate_and_discrimination', 'violence_and_threats', 'dangerous_and_criminal_content', 'selfharm', 'health', 'financial', 'law', 'pii',
] as const;
const AZURE_CATEGORIES = ['Hate', 'SelfHarm', 'Sexual', 'Violence'] as const;

const subset = <T extends readonly [string, ...string[]]>(values: T) => z.array(z.enum(values)).min(1).max(values.length);

const basic = z.strictObject({ timeout: timeout.optional() });
const redactable = z.strictObject({ redact: z.boolean().optional(), timeout: timeout.optional() });
const count = (min: string, max: string) =>
  z.strictObject({ [min]: z.number().int().min(0).optional(), [max]: z.number().int().min(0).optional(), not: not.optional() }).superRefine((p, ctx) => {
    const lo = p[min] as number | undefined;
    const hi = p[max] as number | undefined;
    if (lo !== undefined && hi !== undefined && lo > hi) ctx.addIssue({ code: 'custom', path: [min], message: `must not exceed ${max}` });
  });

/** Checks that call a URL of the caller's choosing; the only ones that may forward request headers. */
const webhook = z.strictObject({
  webhookURL: httpUrl,
  headers: staticHeadersSchema.optional(),
  forwardHeaders: forwardHeadersSchema.optional(),
  timeout: timeout.optional(),
  failOnError: z.boolean().optional(),
  /** gateway-spec "Pass-through": webhook guardrails may opt in to run on proxied requests. */
  executeOnProxy: z.boolean().optional(),
});
const log = z.strictObject({
  logURL: httpUrl,
  headers: staticHeadersSchema.optional(),
  forwardHeaders: forwardHeadersSchema.optional(),
  timeout: timeout.optional(),
});

/** Meta-schema checks only (no compiling): the reference validates with draft 2020-12 (reference §5 jsonSchema). */
const metaSchema = new Ajv2020({ strict: false });
const jsonSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  if (metaSchema.validateSchema(schema)) return;
  const e = metaSchema.errors?.[0];
  const path = (e?.instancePath ?? '').split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  ctx.addIssue({ code: 'custom', path, message: `is not a valid JSON Schema (draft 2020-12): ${e?.message ?? 'invalid'}` });
});

const acuvityDetector = (name: string) => ({ [name]: z.boolean().optional(), [`${name}_threshold`]: threshold.optional() });

/**
 * Partner checks the reference gateway registers whose parameters the spec does not list: known
 * ids, parameters typed where common (`timeout`, `redact`), anything else kept as given, except
 * `forwardHeaders` (removed from checks that do not call the caller's own URL, gateway-spec Versioning 3).
 */
const partner = z
  .looseObject({ timeout: timeout.optional(), redact: z.boolean().optional() })
  .superRefine((p, ctx) => {
    if ('forwardHeaders' in p) ctx.addIssue({ code: 'custom', path: ['forwardHeaders'], message: 'only webhook and log checks forward request headers' });
  });

export const CHECK_PARAMETERS = {
  // default plugin (local checks)
  'default.jwt': z.strictObject({
    jwksUri: z.string().min(1).max(4096).superRefine((value, ctx) => {
      // Comma-separated JWKS URIs are merged (gateway-spec, Authentication 7).
      for (const part of value.split(',')) {
        const r = httpUrl.safeParse(part.trim());
        if (!r.success) ctx.addIssue({ code: 'custom', message: `"${part.trim()}" ${r.error.issues[0]!.message}` });
      }
    }),
    headerKey: nonEmpty,
    cacheMaxAge: z.number().min(0).optional(),
    clockTolerance: z.number().min(0).optional(),
    maxTokenAge: z.string().regex(/^\d+\s*(s|m|h|d|w|y)?$/, 'must be a duration such as 30m or 1d').optional(),
    algorithms: z.array(z.enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'])).min(1).optional(),
  }),
  'default.modelWhitelist': z.strictObject({ models: stringList, not: not.optional() }),
  'default.modelRules': z.strictObject({
    rules: z.strictObject({ defaults: z.array(nonEmpty).optional(), metadata: z.record(z.string(), z.record(z.string(), z.array(nonEmpty))).optional() }),
    not: not.optional(),
  }),
  'default.regexMatch': z.strictObject({ rule: regex, not: not.optional() }),
  'default.regexReplace': z.strictObject({ rule: regex, redactText: z.string().max(1024).optional(), failOnDetection: z.boolean().optional() }),
  'default.sentenceCount': count('minSentences', 'maxSentences'),
  'default.wordCount': count('minWords', 'maxWords'),
  'default.characterCount': count('minCharacters', 'maxCharacters'),
  'default.jsonSchema': z.strictObject({ schema: jsonSchema, not: not.optional() }),
  'default.jsonKeys': z.strictObject({ keys: stringList, operator }),
  'default.contains': z.strictObject({ words: stringList, operator }),
  'default.validUrls': z.strictObject({ onlyDNS: z.boolean().optional(), not: not.optional() }),
  'default.containsCode': z.strictObject({ format: z.enum(CODE_FORMATS), not: not.optional() }),
  'default.webhook': webhook,
  'default.log': log,
  'default.endsWith': z.strictObject({ suffix: z.string().min(1).max(1024), not: not.optional() }),
  'default.alluppercase': z.strictObject({ not: not.optional() }),
  'default.alllowercase': z.strictObject({ not: not.optional() }),
  'default.isAllLowerCase': z.strictObject({ not: not.optional() }),
  'default.notNull': z.strictObject({ not: not.optional() }),
  'default.requiredMetadataKeys': z.strictObject({ metadataKeys: stringList, operator }),
  'default.allowedRequestTypes': z
    .strictObject({ allowedTypes: z.array(z.enum(REQUEST_TYPES)).optional(), blockedTypes: z.array(z.enum(REQUEST_TYPES)).optional() })
    .refine((p) => p.allowedTypes !== undefined || p.blockedTypes !== undefined, { message: 'needs allowedTypes or blockedTypes' }),
  'default.addPrefix': z.strictObject({
    prefix: z.string().min(1).max(100_000),
    applyToRole: z.enum(['user', 'system', 'assistant']).optional(),
    addToExisting: z.boolean().optional(),
    onlyIfEmpty: z.boolean().optional(),
  }),

  // the gateway's hosted checks
  'gateway.moderateContent': z.strictObject({ categories: subset(MODERATION_CATEGORIES), timeout: timeout.optional() }),
  'gateway.language': z.strictObject({
    language: z.string().regex(/^[a-z]{3}_[A-Z][a-z]{3}$/, 'must be a language code such as eng_Latn').optional(),
    not: not.optional(),
    timeout: timeout.optional(),
  }),
  'gateway.pii': z.strictObject({ categories: subset(PII_CATEGORIES), redact: z.boolean().optional(), timeout: timeout.optional() }),
  'gateway.gibberish': basic,

  // partners with parameters in the spec
  'lasso.classify': basic,
  'sydelabs.sydeguard': z.strictObject({
    prompt_injection_threshold: threshold.optional(),
    toxicity_threshold: threshold.optional(),
    evasion_threshold: threshold.optional(),
    timeout: timeout.optional(),
  }),
  'aporia.validateProject': z.strictObject({ projectID: nonEmpty, timeout: timeout.optional() }),
  'pillar.scanPrompt': z.strictObject({ scanners: subset(PILLAR_SCANNERS), timeout: timeout.optional() }),
  'pillar.scanResponse': z.strictObject({ scanners: subset(PILLAR_SCANNERS), timeout: timeout.optional() }),
  'patronus.phi': redactable,
  'patronus.pii': redactable,
  'patronus.isConcise': redactable,
  'patronus.isHelpful': redactable,
  'patronus.isPolite': redactable,
  'patronus.noApologies': redactable,
  'patronus.noGenderBias': redactable,
  'patronus.noRacialBias': redactable,
  'patronus.retrievalAnswerRelevance': redactable,
  'patronus.toxicity': redactable,
  'patronus.custom': z.strictObject({ profile: nonEmpty, timeout: timeout.optional() }),
  'mistral.moderateContent': z.strictObject({ categories: subset(MISTRAL_CATEGORIES), timeout: timeout.optional() }),
  'bedrock.guard': z.strictObject({ guardrailId: nonEmpty, guardrailVersion: nonEmpty, redact: z.boolean().optional(), timeout: timeout.optional() }),
  'promptfoo.guard': redactable,
  'promptfoo.pii': redactable,
  'promptfoo.harm': redactable,
  'acuvity.scan': z.strictObject({
    ...acuvityDetector('prompt_injection'),
    ...acuvityDetector('toxic'),
    ...acuvityDetector('jail_break'),
    ...acuvityDetector('malicious_url'),
    ...acuvityDetector('biased'),
    ...acuvityDetector('harmful'),
    language: z.boolean().optional(),
    language_values: z.string().min(1).max(64).optional(),
    pii: z.boolean().optional(),
    pii_redact: z.boolean().optional(),
    pii_categories: z.array(nonEmpty).max(64).optional(),
    secrets: z.boolean().optional(),
    secrets_redact: z.boolean().optional(),
    secrets_categories: z.array(nonEmpty).max(64).optional(),
    timeout: timeout.optional(),
  }),
  'azure.contentSafety': z.strictObject({
    blocklistNames: z.array(nonEmpty).optional(),
    apiVersion: nonEmpty.optional(),
    severity: z.number().min(0).max(7).optional(),
    categories: subset(AZURE_CATEGORIES).optional(),
    timeout: timeout.optional(),
  }),
  'azure.pii': z.strictObject({
    domain: z.enum(['none', 'phi']).optional(),
    apiVersion: nonEmpty.optional(),
    modelVersion: nonEmpty.optional(),
    redact: z.boolean().optional(),
    timeout: timeout.optional(),
  }),
  'panw-prisma-airs.intercept': z.strictObject({ profile_name: nonEmpty, ai_model: nonEmpty.optional(), app_user: nonEmpty.optional() }),

  // partners the reference gateway registers (§5 "Partner checks") without parameters in the spec
  'qualifire.contentModeration': partner,
  'qualifire.grounding': partner,
  'qualifire.policy': partner,
  'qualifire.toolUseQuality': partner,
  'qualifire.hallucinations': partner,
  'qualifire.pii': partner,
  'qualifire.promptInjections': partner,
  'azure.shieldPrompt': partner,
  'azure.protectedMaterial': partner,
  'pangea.textGuard': partner,
  'pangea.pii': partner,
  'promptsecurity.protectPrompt': partner,
  'promptsecurity.protectResponse': partner,
  'exa.online': partner,
  'walledai.walledprotect': partner,
  'javelin.guardrails': partner,
  'f5-guardrails.scan': partner,
  'crowdstrike-aidr.guardChatCompletions': partner,
} satisfies Record<string, z.ZodType>;

export type CheckId = keyof typeof CHECK_PARAMETERS;
export const CHECK_IDS = Object.keys(CHECK_PARAMETERS) as CheckId[];

/** Checks that transform data (mutators) rather than pass or fail (reference §5). */
export const MUTATOR_CHECKS: readonly CheckId[] = ['default.regexReplace', 'default.addPrefix'];

/** `fn` means `default.fn` (reference §5: "An id without a dot gets `default.` prepended"). */
export const normaliseCheckId = (id: string): string => (id.includes('.') ? id : `default.${id}`);

export const isKnownCheckId = (id: string): id is CheckId => Object.hasOwn(CHECK_PARAMETERS, id);
