import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@meridian/domain';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

/** Current per-minute limits; the application keeps them in step with the service settings. */
export abstract class RateLimitPolicy {
  abstract authenticatedPerMinute(): number;
  abstract apiKeyPerMinute(): number;
  abstract unauthenticatedPerMinute(): number;
}

interface Window {
  start: number;
  count: number;
}

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows per caller: callers presenting credentials are counted per credential — an
 * API key at the API key limit (automation makes many calls), a bearer token at the authenticated
 * limit — and everyone else per client address (unauthenticated limit). Credentials that
 * turn out to be invalid (401) also count against their client address at the unauthenticated limit,
 * and an unproven credential from an address over that limit is refused, so a made-up X-Api-Key per
 * request cannot escape the per-address limit. Health probes are exempt. Counts are per web replica.
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
    const apiKey = req.headers['x-api-key'] as string | undefined;
    const credential = apiKey ?? req.headers.authorization;
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const now = Date.now();
    this.sweep(now);
    if (credential) {
      const key = `${apiKey === undefined ? 'c' : 'k'}:${createHash('sha256').update(String(credential)).digest('base64url')}`;
      // A credential with a window has been accepted before; only unproven ones face the address's failures.
      const failures = this.current(`f:${address}`, now);
      const failureLimit = this.policy.unauthenticatedPerMinute();
      if (!this.windows.has(key) && failures.count >= failureLimit) this.refuse(res, failureLimit, failures, now);
      res.once('finish', () => {
        if (res.statusCode !== 401) return;
        this.current(`f:${address}`, Date.now()).count++;
        this.windows.delete(key); // an invalid credential keeps no window of its own
      });
      this.count(res, key, apiKey === undefined ? this.policy.authenticatedPerMinute() : this.policy.apiKeyPerMinute(), now);
    } else {
      this.count(res, `ip:${address}`, this.policy.unauthenticatedPerMinute(), now);
    }
    return true;
  }

  private current(key: string, now: number): Window {
    let window = this.windows.get(key);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    return window;
  }

  private count(res: Response, key: string, limit: number, now: number): void {
    const window = this.current(key, now);
    window.count++;
    if (window.count > limit) this.refuse(res, limit, window, now);
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - window.count)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil((window.start + WINDOW_MS - now) / 1000)));
  }

  private refuse(res: Response, limit: number, window: Window, now: number): never {
    const resetSeconds = Math.ceil((window.start + WINDOW_MS - now) / 1000);
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', '0');
    res.setHeader('X-RateLimit-Reset', String(resetSeconds));
    res.setHeader('Retry-After', String(resetSeconds));
    throw new DomainError(ErrorCode.RateLimited, `Too many requests: the limit is ${limit} per minute. Try again in ${resetSeconds} s.`);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < WINDOW_MS) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
  }
}
