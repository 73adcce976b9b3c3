import { readFileSync } from 'node:fs';

/** Whether a process id is still running: it exists and is not a zombie (exited, not yet reaped by whoever adopted it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
