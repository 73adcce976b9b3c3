import { spawn } from 'node:child_process';
import { StepLog, StepOutcome, StepTask } from './step-task';

export interface ProcessTaskOptions {
  /** The program: an absolute path (never run through a shell). */
  command: string;
  args: string[];
  cwd: string;
  /** The complete environment (see stepEnvironment); nothing is inherited. */
  env: Record<string, string>;
  log: StepLog;
  /** Time between SIGTERM and SIGKILL when the step is stopped. */
  killGraceMs: number;
}

const MAX_LINE = 8_000;
const STDERR_TAIL_LINES = 5;
const MAX_TAIL_CHARS = 1_000;

/** Splits a stream into lines (long lines are cut into pieces) and hands each to `emit`. */
function lineSplitter(emit: (line: string) => void) {
  let buffer = '';
  return {
    push(chunk: Buffer | string) {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        emit(buffer.slice(0, newline).replace(/\r$/, ''));
        buffer = buffer.slice(newline + 1);
      }
      while (buffer.length > MAX_LINE) {
        emit(buffer.slice(0, MAX_LINE));
        buffer = buffer.slice(MAX_LINE);
      }
    },
    flush() {
      if (buffer) emit(buffer.replace(/\r$/, ''));
      buffer = '';
    },
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Runs a step's program as a child process without a shell, in its own process group (so stopping it
 * also stops whatever it started). Output lines go to the scheduler log; exit code 0 is success,
 * anything else fails with the exit code and the last lines of stderr. Whatever the program leaves
 * running in its group when it exits is terminated.
 */
export function startProcessTask(options: ProcessTaskOptions): StepTask {
  const stderrTail: string[] = [];
  let stopping = false;
  let exited = false;
  let killTimer: NodeJS.Timeout | null = null;

  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    shell: false,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const pid = child.pid ?? null;
  const out = lineSplitter((line) => options.log.line('stdout', line));
  const err = lineSplitter((line) => {
    options.log.line('stderr', line);
    if (line.trim()) {
      stderrTail.push(line.trim());
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    }
  });
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  child.stderr?.on('data', (d: Buffer) => err.push(d));

  const done = new Promise<StepOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: StepOutcome) => {
      if (settled) return;
      settled = true;
      out.flush();
      err.flush();
      resolve(outcome);
    };
    child.once('error', (e: NodeJS.ErrnoException) => {
      exited = true;
      settle({ ok: false, errorMessage: `could not start ${options.command}: ${e.code ?? e.message}` });
    });
    child.once('exit', (code, signal) => {
      exited = true;
      if (pid !== null) signalGroup(pid, 'SIGTERM');
      if (killTimer && !stopping) clearTimeout(killTimer);
      const outcome = (): StepOutcome => {
        if (code === 0) return { ok: true, errorMessage: null };
        const tail = stderrTail.join(' | ').slice(-MAX_TAIL_CHARS);
        const reason = code !== null ? `exit code ${code}` : `terminated by ${signal ?? 'a signal'}`;
        return { ok: false, errorMessage: tail ? `${reason}: ${tail}` : reason };
      };
      // Let the pipes drain (the last output lines belong in the log), but never wait on a grandchild holding them open.
      const drained = setTimeout(() => settle(outcome()), 500);
      child.once('close', () => {
        clearTimeout(drained);
        settle(outcome());
      });
    });
  });

  return {
    processId: pid,
    done,
    stop() {
      if (stopping || pid === null) return;
      stopping = true;
      if (!exited) signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), options.killGraceMs);
      killTimer.unref();
    },
  };
}
