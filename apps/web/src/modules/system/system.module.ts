import { Module } from '@nestjs/common';
import { QueueProbesController } from './queue-probes.controller';

@Module({ controllers: [QueueProbesController] })
export class SystemModule {}
