import { Injectable } from '@nestjs/common';
import { SecretBox } from '@meridian/platform';
import { openStepConnectionString } from './schedules.service';

/** Opens the sealed secrets of schedule steps for the step that runs them (never for responses or logs). */
@Injectable()
export class StepSecrets {
  constructor(private readonly box: SecretBox) {}

  /** The clear connection string of a SqlScript step (sealed per step id by SchedulesService). */
  openConnectionString(stepId: string, sealed: string): string {
    return openStepConnectionString(this.box, stepId, sealed);
  }
}
