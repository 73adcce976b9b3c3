import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Initiator, RunProfilesService } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { CreateRunProfileDto, RunProfileDto, RunProfileExecutionDto, UpdateRunProfileDto } from './dto/run-profile.dto';

@ApiTags('Run profiles')
@Controller('api/v1/synchronisation/connected-systems/:connectedSystemId/run-profiles')
@AdminEndpoint()
export class RunProfilesController {
  constructor(private readonly runProfiles: RunProfilesService) {}

  @Get()
  @ApiOperation({ summary: 'List the run profiles of a connected system' })
  @ApiOkResponse({ type: [RunProfileDto] })
  @ApiErrors(400, 404)
  list(@Param('connectedSystemId', IntIdPipe) systemId: number) {
    return this.runProfiles.list(systemId);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a run profile',
    description: "A run type the connector cannot do with the system's settings is refused (400 naming runType).",
  })
  @ApiCreatedResponse({ type: RunProfileDto })
  @ApiErrors(400, 404, 409)
  create(
    @Param('connectedSystemId', IntIdPipe) systemId: number,
    @Body() body: CreateRunProfileDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.runProfiles.create(systemId, body, initiator);
  }

  @ApiOperation({ summary: 'Get a run profile' })
  @Get(':runProfileId')
  @ApiOkResponse({ type: RunProfileDto })
  @ApiErrors(400, 404)
  get(@Param('connectedSystemId', IntIdPipe) systemId: number, @Param('runProfileId', IntIdPipe) id: number) {
    return this.runProfiles.get(systemId, id);
  }

  @Put(':runProfileId')
  @ApiOperation({ summary: 'Update a run profile (partial)' })
  @ApiOkResponse({ type: RunProfileDto })
  @ApiErrors(400, 404, 409)
  update(
    @Param('connectedSystemId', IntIdPipe) systemId: number,
    @Param('runProfileId', IntIdPipe) id: number,
    @Body() body: UpdateRunProfileDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.runProfiles.update(systemId, id, body, initiator);
  }

  @ApiOperation({ summary: 'Delete a run profile' })
  @Delete(':runProfileId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404, 409)
  async remove(
    @Param('connectedSystemId', IntIdPipe) systemId: number,
    @Param('runProfileId', IntIdPipe) id: number,
    @CurrentInitiator() initiator: Initiator,
  ): Promise<void> {
    await this.runProfiles.remove(systemId, id, initiator);
  }

  @Post(':runProfileId/execute')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Execute a run profile',
    description: 'Creates an InProgress activity and queues the run; poll the activity for progress and the result.',
  })
  @ApiAcceptedResponse({ type: RunProfileExecutionDto })
  @ApiErrors(400, 404, 409, 503)
  execute(
    @Param('connectedSystemId', IntIdPipe) systemId: number,
    @Param('runProfileId', IntIdPipe) id: number,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.runProfiles.execute(systemId, id, initiator);
  }
}
