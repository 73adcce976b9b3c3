import type { Logger } from '../logging/logger';

/**
 * Logs rejected bearer tokens as warnings, at most `limit` lines per `windowMs` per process; the rest are
 * counted and reported in one line when the next window starts, so nobody can flood the log with bad
 * tokens.
 */
export class TokenRejectionLog {
  private windowStart = Number.NEGATIVE_INFINITY;
  private written = 0;
  private suppressed = 0;

  constructor(
    private readonly logger: Logger,
    private readonly clock: () => number,
    private readonly limit = 10,
    private readonly windowMs = 60_000,
  ) {}

  write(reason: string, properties: { kid?: string; issuer?: string }): void {
    const now = this.clock();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0) {
        this.logger.log({
          level: 'warning',
          message: `${this.suppressed} further access token rejections suppressed`,
          suppressed: this.suppressed,
        });
      }
      this.windowStart = now;
      this.written = 0;
      this.suppressed = 0;
    }
    if (this.written >= this.limit) {
      this.suppressed++;
      return;
    }
    this.written++;
    this.logger.log({ level: 'warning', message: `Access token rejected: ${reason}`, reason, ...properties });
  }
}
