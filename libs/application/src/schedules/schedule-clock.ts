import { Injectable } from '@nestjs/common';

/**
 * The time the scheduler works to: due times, step timeouts, heartbeats and the timestamps it writes.
 * The system clock in production; tests of the scheduler replace the source (a fake clock) so minutes
 * of schedule time pass without waiting.
 */
@Injectable()
export class ScheduleClock {
  private source: () => Date = () => new Date();

  now(): Date {
    return this.source();
  }

  /** Replaces the time source (scheduler tests only; createScheduler's `clock` option). */
  useSource(source: () => Date): void {
    this.source = source;
  }
}
