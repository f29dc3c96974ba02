/** Cohere v2 finish_reason -> OpenAI finish_reason. */
export function finishReason(reason: unknown): string | null {
  switch (reason) {
    case 'MAX_TOKENS':
    case 'ERROR_LIMIT':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    case 'ERROR_TOXIC':
      return 'content_filter';
    case null:
    case undefined:
      return null;
    default:
      return 'stop'; // COMPLETE, STOP_SEQUENCE, USER_CANCEL, ERROR
  }
}
