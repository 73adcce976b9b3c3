import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Initiator, ScheduleExecutionsService } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { ExecutionDetailDto } from './dto/schedule-execution.dto';

@ApiTags('Schedules')
@Controller('api/v1/schedules')
@AdminEndpoint()
export class ScheduleRunController {
  constructor(private readonly executions: ScheduleExecutionsService) {}

  @Post(':id/run')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Run a schedule now',
    description:
      'Always starts one execution: whatever the trigger type (Manual or Cron), whether the schedule is enabled, and even while another execution of it ' +
      'is active. Returns 202 with the Queued execution (initiatedByType User or ApiKey); the scheduler runs it. In maintenance mode it waits as Paused.',
  })
  @ApiAcceptedResponse({ type: ExecutionDetailDto })
  @ApiErrors(400, 404)
  run(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator) {
    return this.executions.startManual(id, initiator);
  }
}
