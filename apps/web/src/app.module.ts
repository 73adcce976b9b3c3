import { DynamicModule, Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AccessModule, ApiKeysService, ApplicationCoreModule } from '@meridian/application';
import {
  ApiKeyStrategy,
  APP_CONFIG,
  AppConfig,
  AuthGuard,
  DependencyRetryInterceptor,
  Logger,
  LOGGER,
  OidcTokenVerifier,
  PlatformModule,
  RateLimitGuard,
} from '@meridian/platform';
import { RouteCatalog } from './http/route-catalog';
import { WebExceptionFilter } from './http/web-exception.filter';
import { ActivitiesModule } from './modules/activities/activities.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { AuthModule } from './modules/auth/auth.module';
import { HealthModule } from './modules/health/health.module';
import { LogsModule } from './modules/logs/logs.module';
import { MetaverseModule } from './modules/metaverse/metaverse.module';
import { RolesModule } from './modules/roles/roles.module';
import { ServiceSettingsModule } from './modules/settings/service-settings.module';
import { SystemModule } from './modules/system/system.module';
import { CertificatesModule } from './modules/certificates/certificates.module';
import { ConnectedSystemsModule } from './modules/connected-systems/connected-systems.module';
import { ConnectorsModule } from './modules/connectors/connectors.module';
import { SyncRulesModule } from './modules/sync-rules/sync-rules.module';
import { ScheduleExecutionsModule } from './modules/schedule-executions/schedule-executions.module';
import { SchedulesModule } from './modules/schedules/schedules.module';
import { HistoryApiModule } from './modules/history/history.module';
import { HistoryCleanupApiModule } from './modules/history/history-cleanup.module';

/** Makes MERIDIAN_BOOTSTRAP_API_KEY's Administrator key exist (or go away when the variable is unset). */
@Injectable()
class BootstrapKeyInitialiser implements OnApplicationBootstrap {
  constructor(
    private readonly keys: ApiKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.keys.ensureBootstrapKey(this.config.bootstrapApiKey);
    } catch (e) {
      this.logger.log({ level: 'error', message: `Could not ensure the bootstrap API key: ${(e as Error).message}`, error: e });
    }
  }
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot(config, logger),
        ApplicationCoreModule.forRoot(config),
        AccessModule,
        DiscoveryModule,
        PassportModule,
        HealthModule,
        AuthModule,
        ApiKeysModule,
        ActivitiesModule,
        ServiceSettingsModule,
        RolesModule,
        MetaverseModule,
        SystemModule,
        LogsModule,
        ConnectorsModule,
        ConnectedSystemsModule,
        SyncRulesModule,
        CertificatesModule,
        SchedulesModule,
        ScheduleExecutionsModule,
        HistoryApiModule,
        HistoryCleanupApiModule,
      ],
      providers: [
        RouteCatalog,
        ApiKeyStrategy,
        OidcTokenVerifier,
        BootstrapKeyInitialiser,
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: WebExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: DependencyRetryInterceptor },
      ],
    };
  }
}
