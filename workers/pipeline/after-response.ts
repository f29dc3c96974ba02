// Work that must not delay the caller (usage parsing, accounting) runs after the answer is
// handed back: one timer per batch of requests, not one per request.
let queue: (() => void)[] = [];
let scheduled = false;

function run(): void {
  const jobs = queue;
  queue = [];
  scheduled = false;
  for (const job of jobs) {
    try {
      job();
    } catch {
      /* a failed accounting job must not stop the others */
    }
  }
}

export function afterResponse(job: () => void): void {
  queue.push(job);
  if (!scheduled) {
    scheduled = true;
    setTimeout(run, 0);
  }
}
