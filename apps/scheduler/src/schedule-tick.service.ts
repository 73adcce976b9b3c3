import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SettingKeys } from '@meridian/domain';
import { ScheduleClock, ScheduleExecutionRunner, SettingsService } from '@meridian/application';
import { classifyDependencyError, DependencyOutages, failureSummary, Logger, LOGGER } from '@meridian/platform';
import { LeaderService } from './leader.service';
import { ScheduleDispatcher } from './schedule-dispatcher.service';
import { SCHEDULER_OPTIONS, SchedulerOptions } from './scheduler.options';

const ERROR_LOG_INTERVAL_MS = 30_000;

/**
 * The scheduler's heartbeat. Every tick, the leader applies maintenance mode (Queued ⇄ Paused),
 * dispatches due cron schedules unless maintenance mode is on, and drives executions; a follower only
 * finishes the step processes it still runs from when it was leader.
 */
@Injectable()
export class ScheduleTickService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;
  private maintenance: boolean | null = null;
  private readonly lastErrorLog = new Map<string, number>();
  private readonly outages: DependencyOutages;

  constructor(
    private readonly leader: LeaderService,
    private readonly dispatcher: ScheduleDispatcher,
    private readonly runner: ScheduleExecutionRunner,
    private readonly settings: SettingsService,
    clock: ScheduleClock,
    @Inject(SCHEDULER_OPTIONS) private readonly options: SchedulerOptions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.intervalMs = options.tickIntervalMs ?? 1000;
    this.outages = DependencyOutages.of(logger);
    if (options.clock) clock.useSource(options.clock);
  }

  onApplicationBootstrap(): void {
    if (this.options.autoStart !== false) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking?.catch(() => undefined);
    await this.runner.shutdown();
  }

  /** One tick (also what tests call). Ticks never overlap. */
  tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule());
    }, this.intervalMs);
  }

  private async runTick(): Promise<void> {
    if (this.stopped) return;
    const leader = this.leader.isLeader;
    let maintenance = false;
    if (leader) {
      try {
        maintenance = (await this.settings.effective(SettingKeys.MaintenanceEnabled)) === true;
        if (maintenance !== this.maintenance) {
          if (maintenance || this.maintenance !== null) {
            this.logger.log({
              level: 'information',
              message: maintenance
                ? 'Maintenance mode is on: cron schedules are held and queued executions are paused.'
                : 'Maintenance mode is off: held schedules and paused executions continue.',
            });
          }
          this.maintenance = maintenance;
        }
        await this.dispatcher.applyMaintenance(maintenance);
        if (!maintenance) await this.dispatcher.dispatchDue();
      } catch (e) {
        this.logError('dispatch', e);
        return;
      }
    }
    try {
      await this.runner.pass({ leader, maintenance });
    } catch (e) {
      this.logError('executions', e);
    }
  }

  /**
   * A dependency outage is one warning for as long as it lasts (DependencyOutages); anything else would
   * otherwise log the same error every second, so it is logged at most every 30 s.
   */
  private logError(area: string, e: unknown): void {
    const dependency = classifyDependencyError(e);
    if (dependency) {
      this.outages.unavailable(dependency, failureSummary(e), `scheduler ${area}`);
      return;
    }
    const message = (e as Error).message;
    const key = `${area}:${message}`;
    const now = Date.now();
    if (now - (this.lastErrorLog.get(key) ?? 0) < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLog.set(key, now);
    this.logger.log({ level: 'error', message: `Scheduler tick failed (${area}): ${message}`, error: e });
  }
}
