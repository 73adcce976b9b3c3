import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@meridian/domain';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/** Current per-minute limits; the application keeps them in step with the service settings. */
export abstract class RateLimitPolicy {
  abstract authenticatedPerMinute(): number;
  abstract unauthenticatedPerMinute(): number;
}

interface Window {
  start: number;
  count: number;
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows per caller: callers presenting credentials are counted per credential
 * (authenticated limit), everyone else per client address (unauthenticated limit). Health probes are
 * exempt. Counts are per web replica.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly windows = new Map<string, Window>();
  private lastSweep = Date.now();

  constructor(private readonly policy: RateLimitPolicy) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    if ((req.originalUrl ?? req.url).startsWith('/api/v1/health')) return true;
    const credential = (req.headers['x-api-key'] as string | undefined) ?? req.headers.authorization;
    const key = credential
      ? `c:${createHash('sha256').update(String(credential)).digest('base64url')}`
      : `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
    const limit = credential ? this.policy.authenticatedPerMinute() : this.policy.unauthenticatedPerMinute();
    const now = Date.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    const resetSeconds = Math.ceil((window.start + WINDOW_MS - now) / 1000);
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - window.count)));
    res.setHeader('X-RateLimit-Reset', String(resetSeconds));
    if (window.count > limit) {
      res.setHeader('Retry-After', String(resetSeconds));
      throw new DomainError(ErrorCode.RateLimited, `Too many requests: the limit is ${limit} per minute. Try again in ${resetSeconds} s.`);
    }
    return true;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < WINDOW_MS) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
  }
}
