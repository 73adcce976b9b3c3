import { Module } from '@nestjs/common';
import { QueueProbesModule } from '@meridian/application';
import { QueueProbesController } from './queue-probes.controller';

@Module({ imports: [QueueProbesModule], controllers: [QueueProbesController] })
export class SystemModule {}
