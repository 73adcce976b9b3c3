import { Dependency, DEPENDENCY_NAMES } from '@meridian/domain';
import type { Logger } from '../logging/logger';

interface Outage {
  since: number;
  /** Failures seen while it lasts (the first one included). */
  failures: number;
  /** The connections that reported the failure and have not reconnected yet. */
  sources: Set<string>;
}

const byLogger = new WeakMap<Logger, DependencyOutages>();

/**
 * The dependency outages one process has seen. The first failure of an outage is logged once as a
 * warning (no stack), repeats are counted silently, and the first success observed after it began is
 * logged once as information. Every part of a process (the exception filter, the queue listeners, the
 * scheduler's tick, readiness) reports here, so an outage is one warning and one recovery line per
 * process however many requests or jobs meet it.
 */
export class DependencyOutages {
  private readonly outages = new Map<Dependency, Outage>();

  private constructor(private readonly logger: Logger) {}

  /** The tracker of the process that writes to this logger (one per service logger). */
  static of(logger: Logger): DependencyOutages {
    let tracker = byLogger.get(logger);
    if (!tracker) {
      tracker = new DependencyOutages(logger);
      byLogger.set(logger, tracker);
    }
    return tracker;
  }

  /**
   * Records a failure caused by the dependency being unavailable. Returns true when it starts an outage
   * (the warning was written), false while one is already recorded. `source` names a connection that
   * reconnects on its own (a queue, a pool): the outage then lasts until that connection is back too.
   */
  unavailable(dependency: Dependency, detail: string, context?: string, source?: string): boolean {
    const current = this.outages.get(dependency);
    if (current) {
      current.failures++;
      if (source) current.sources.add(source);
      return false;
    }
    this.outages.set(dependency, { since: Date.now(), failures: 1, sources: new Set(source ? [source] : []) });
    this.logger.log({
      level: 'warning',
      message:
        `${DEPENDENCY_NAMES[dependency]} is unavailable${context ? ` (${context})` : ''}: ${detail.replace(/\.+$/, '')}. ` +
        'Requests that need it answer 503 until it is back; further failures are not logged until then.',
      dependency,
    });
    return true;
  }

  /**
   * Records that the dependency answered. `observedSince` is when the work that succeeded began: a
   * success that started before the outage was recorded proves nothing and is ignored. With a `source`
   * (a connection that came back), the outage ends once every connection that failed is back; without
   * one (a request or a readiness check that got its answer), it ends at once.
   */
  available(dependency: Dependency, observedSince = Date.now(), source?: string): void {
    const current = this.outages.get(dependency);
    if (!current || observedSince < current.since) return;
    if (source) {
      current.sources.delete(source);
      if (current.sources.size) return;
    }
    this.outages.delete(dependency);
    const seconds = ((Date.now() - current.since) / 1000).toFixed(1);
    this.logger.log({
      level: 'information',
      message: `${DEPENDENCY_NAMES[dependency]} is available again after ${seconds} s (${current.failures} failure(s) during the outage).`,
      dependency,
      outageSeconds: Number(seconds),
      failures: current.failures,
    });
  }

  /** Whether an outage of the dependency is recorded. */
  isUnavailable(dependency: Dependency): boolean {
    return this.outages.has(dependency);
  }

  /** The dependencies with a recorded outage. */
  current(): Dependency[] {
    return [...this.outages.keys()];
  }
}
