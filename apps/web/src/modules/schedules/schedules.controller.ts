import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Initiator, SchedulesService } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors, pagedOf } from '../../http/openapi';
import { PageQueryDto } from '../../http/paging.dto';
import { CreateScheduleDto, ScheduleDetailDto, ScheduleDto, UpdateScheduleDto } from './dto/schedule.dto';

const SchedulePage = pagedOf(ScheduleDto, 'SchedulePage');

@ApiTags('Schedules')
@Controller('api/v1/schedules')
@AdminEndpoint()
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Get()
  @ApiOperation({
    summary: 'List schedules',
    description: 'Paginated (spec 2.1; pageSize default 25, max 100), ordered by name; each with its step count and latest execution.',
  })
  @ApiOkResponse({ type: SchedulePage })
  @ApiErrors(400)
  list(@Query() query: PageQueryDto) {
    return this.schedules.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a schedule',
    description:
      'Required: name, triggerType, and patternType for Cron schedules (plus the fields its pattern needs). ' +
      'isEnabled defaults to false. Returns 201 with the schedule and its steps; records a Schedule Create activity.',
  })
  @ApiCreatedResponse({ type: ScheduleDetailDto })
  @ApiErrors(400, 409)
  create(@Body() body: CreateScheduleDto, @CurrentInitiator() initiator: Initiator) {
    return this.schedules.create(body, initiator);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a schedule with its steps' })
  @ApiOkResponse({ type: ScheduleDetailDto })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.schedules.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a schedule (partial)',
    description:
      'Only the fields sent change; steps, when sent, replaces every step (ids sent back are kept). ' +
      'nextRunTime is recomputed when the trigger, pattern, time zone or isEnabled change; lastRunTime never changes here.',
  })
  @ApiOkResponse({ type: ScheduleDetailDto })
  @ApiErrors(400, 404, 409)
  update(@Param('id', UuidPipe) id: string, @Body() body: UpdateScheduleDto, @CurrentInitiator() initiator: Initiator) {
    return this.schedules.update(id, body, initiator);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a schedule',
    description: 'Deletes its steps and finished executions. 409 while an execution is Queued, InProgress or Paused: cancel it first.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator): Promise<void> {
    await this.schedules.remove(id, initiator);
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enable a schedule',
    description: 'Computes nextRunTime (Cron schedules). Enabling an enabled schedule changes nothing. Returns the schedule.',
  })
  @ApiOkResponse({ type: ScheduleDetailDto })
  @ApiErrors(400, 404)
  enable(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator) {
    return this.schedules.setEnabled(id, true, initiator);
  }

  @Post(':id/disable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Disable a schedule',
    description: 'Clears nextRunTime; running executions go on. Disabling a disabled schedule changes nothing. Returns the schedule.',
  })
  @ApiOkResponse({ type: ScheduleDetailDto })
  @ApiErrors(400, 404)
  disable(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator) {
    return this.schedules.setEnabled(id, false, initiator);
  }
}
