import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { SettingKeys } from '@meridian/domain';
import { APP_CONFIG, AppConfig, Logger, LOGGER, setLoggerLevel } from '@meridian/platform';
import { SettingsService } from './settings.service';

/**
 * Applies the `Logging.MinimumLevel` service setting to this process's logger within seconds of a
 * change. While the setting has no value, MERIDIAN_LOG_LEVEL applies.
 */
@Injectable()
export class LogLevelFollower implements OnModuleInit, OnModuleDestroy {
  private timer: NodeJS.Timeout | null = null;
  private applied: string;
  intervalMs = 10_000;

  constructor(
    private readonly settings: SettingsService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.applied = config.logLevel;
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sync().catch(() => undefined), this.intervalMs);
    this.timer.unref();
    void this.sync().catch(() => undefined);
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Reads the setting once and applies it; returns the level in force. */
  async sync(): Promise<string> {
    const setting = await this.settings.get(SettingKeys.LoggingMinimumLevel);
    const wanted = (setting.value as string | null) ?? this.config.logLevel;
    if (wanted !== this.applied) {
      setLoggerLevel(this.logger, wanted);
      this.logger.log({ level: 'information', message: `Log level is now ${wanted}.` });
      this.applied = wanted;
    }
    return wanted;
  }
}
