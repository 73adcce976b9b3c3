import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { Logger, LOGGER } from './logging/logger';

/** Makes the validated configuration and the service logger injectable everywhere. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: PlatformModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
      ],
      exports: [APP_CONFIG, LOGGER],
    };
  }
}
