import type { Logger } from '../logging/logger';

/**
 * Logs rejected bearer tokens as warnings, at most `limit` lines per `windowMs` per process; the rest are
 * counted and reported in one line when the window ends (or when the next rejection opens a new one), so
 * nobody can flood the log with bad tokens and no flood goes unreported.
 */
export class TokenRejectionLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private written = 0;
  private suppressed = 0;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly logger: Logger,
    private readonly clock: () => number,
    private readonly limit = 10,
    private readonly windowMs = 60_000,
  ) {}

  write(reason: string, properties: { kid?: string; issuer?: string }): void {
    const now = this.clock();
    if (now - this.windowStart >= this.windowMs) {
      this.flush();
      this.windowStart = now;
      this.written = 0;
    }
    if (this.written >= this.limit) {
      this.suppressed++;
      // Report the count at the end of the window even if no rejection follows; never keeps the process alive.
      this.flushTimer ??= setTimeout(() => this.flush(), Math.max(0, this.windowStart + this.windowMs - now)).unref();
      return;
    }
    this.written++;
    this.logger.log({ level: 'warning', message: `Access token rejected: ${reason}`, reason, ...properties });
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.suppressed === 0) return;
    this.logger.log({
      level: 'warning',
      message: `${this.suppressed} further access token rejections suppressed`,
      suppressed: this.suppressed,
    });
    this.suppressed = 0;
  }
}
