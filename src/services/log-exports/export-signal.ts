// Wakes this process's export job as soon as an export starts (other replicas find it on their
// next poll: the job's claim is in PostgreSQL, not here).
import { EventEmitter } from 'node:events';

export const exportSignal = new EventEmitter();
exportSignal.setMaxListeners(100);

export const wakeExportJobs = (): void => {
  exportSignal.emit('wake');
};
