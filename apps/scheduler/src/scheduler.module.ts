import { DynamicModule, Module } from '@nestjs/common';
import { ApplicationModule } from '@meridian/application';
import { AppConfig, Logger, PlatformModule } from '@meridian/platform';
import { LeaderService } from './leader.service';

@Module({})
export class SchedulerModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [PlatformModule.forRoot(config, logger), ApplicationModule.forRoot(config)],
      providers: [LeaderService],
      exports: [LeaderService],
    };
  }
}
