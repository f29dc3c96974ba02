import { describe, it, expect } from 'vitest';
import { matchEndpoint } from '../../../workers/endpoints/table.ts';

describe('endpoint table', () => {
  it('maps method + path to the endpoint, its adapter operation and body kind', () => {
    expect(matchEndpoint('POST', 'chat/completions')).toEqual({ endpoint: 'chat.completions', adapterEndpoint: 'chat.completions', body: 'json' });
    expect(matchEndpoint('POST', 'audio/transcriptions')).toEqual({ endpoint: 'audio.transcriptions', adapterEndpoint: 'audio.transcriptions', body: 'stream' });
    expect(matchEndpoint('POST', 'messages')?.adapterEndpoint).toBe('messages');
    expect(matchEndpoint('GET', 'files/file-1/content')).toEqual({ endpoint: 'files.content', body: 'none' });
    expect(matchEndpoint('DELETE', 'files/file-1')?.endpoint).toBe('files.delete');
    expect(matchEndpoint('GET', 'vector_stores/vs_1/file_batches/b_1')?.endpoint).toBe('vector_stores.file_batches.get');
    expect(matchEndpoint('POST', 'threads/t/runs/r/submit_tool_outputs')?.endpoint).toBe('threads.runs.submit_tool_outputs');
  });

  it('anything else is pass-through (null): unknown paths, other methods, empty segments', () => {
    expect(matchEndpoint('PUT', 'chat/completions')).toBeNull();
    expect(matchEndpoint('GET', 'chat/completions')).toBeNull();
    expect(matchEndpoint('POST', 'some/other/path')).toBeNull();
    expect(matchEndpoint('GET', 'files//content')).toBeNull();
    expect(matchEndpoint('GET', 'files/a/b/c')).toBeNull();
  });
});
