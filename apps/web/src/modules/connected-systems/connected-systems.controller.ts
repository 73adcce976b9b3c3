import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConnectedSystemDeletionService, ConnectedSystemSchemaService, ConnectedSystemsService, Initiator } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import type { Response } from 'express';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  ConnectedSystemDeletionPreviewDto,
  ConnectedSystemDeletionResultDto,
  ConnectedSystemDto,
  ConnectedSystemSummaryDto,
  CreateConnectedSystemDto,
  DeleteConnectedSystemQueryDto,
  SchemaImportResultDto,
  TestConnectionResultDto,
  UpdateConnectedSystemDto,
} from './dto/connected-system.dto';

@ApiTags('Connected systems')
@Controller('api/v1/synchronisation/connected-systems')
@AdminEndpoint()
export class ConnectedSystemsController {
  constructor(
    private readonly systems: ConnectedSystemsService,
    private readonly schema: ConnectedSystemSchemaService,
    private readonly deletion: ConnectedSystemDeletionService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List connected systems',
    description: 'Every connected system with its object type, connector space object and run profile counts.',
  })
  @ApiOkResponse({ type: [ConnectedSystemSummaryDto] })
  list() {
    return this.systems.list();
  }

  @Post()
  @ApiOperation({
    summary: 'Create a connected system',
    description: "Settings are validated against the connector's settings schema; secret settings are encrypted at rest.",
  })
  @ApiCreatedResponse({ type: ConnectedSystemDto })
  @ApiErrors(400, 409)
  create(@Body() body: CreateConnectedSystemDto, @CurrentInitiator() initiator: Initiator) {
    return this.systems.create(body, initiator);
  }

  @Get(':connectedSystemId')
  @ApiOperation({
    summary: 'Get a connected system',
    description: 'Non-secret settings by name; of the secret settings only the names of those that are set (secretSettingsSet).',
  })
  @ApiOkResponse({ type: ConnectedSystemDto })
  @ApiErrors(400, 404)
  get(@Param('connectedSystemId', IntIdPipe) id: number) {
    return this.systems.get(id);
  }

  @Put(':connectedSystemId')
  @ApiOperation({
    summary: 'Update a connected system',
    description: 'Partial. connectorType cannot change. Omitted secrets are kept; a secret sent as null is cleared.',
  })
  @ApiOkResponse({ type: ConnectedSystemDto })
  @ApiErrors(400, 404, 409)
  update(
    @Param('connectedSystemId', IntIdPipe) id: number,
    @Body() body: UpdateConnectedSystemDto,
    @CurrentInitiator() initiator: Initiator,
  ) {
    return this.systems.update(id, body, initiator);
  }

  @Delete(':connectedSystemId')
  @ApiOperation({
    summary: 'Delete a connected system',
    description:
      'Removes the system with its connector space objects, object types, attributes, run profiles and sync rules. ' +
      'Up to 1000 connector space objects: deleted at once (200, CompletedImmediately). More: a background job (202, QueuedAsBackgroundJob). ' +
      'While a run of the system is in progress: queued to start when it finishes (202, QueuedAfterSync). Asking again while queued answers 202 with the same activity.',
  })
  @ApiOkResponse({ type: ConnectedSystemDeletionResultDto, description: 'Deleted (CompletedImmediately).' })
  @ApiAcceptedResponse({
    type: ConnectedSystemDeletionResultDto,
    description: 'Queued (QueuedAsBackgroundJob or QueuedAfterSync); follow the activity.',
  })
  @ApiErrors(400, 404, 503)
  async remove(
    @Param('connectedSystemId', IntIdPipe) id: number,
    @Query() query: DeleteConnectedSystemQueryDto,
    @CurrentInitiator() initiator: Initiator,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { status, result } = await this.deletion.requestDeletion(id, query.deleteChangeHistory ?? false, initiator);
    res.status(status);
    return result;
  }

  @Get(':connectedSystemId/deletion-preview')
  @ApiOperation({
    summary: 'Preview a deletion',
    description: 'What DELETE would remove, and whether it would complete immediately or run in the background.',
  })
  @ApiOkResponse({ type: ConnectedSystemDeletionPreviewDto })
  @ApiErrors(400, 404)
  preview(@Param('connectedSystemId', IntIdPipe) id: number) {
    return this.deletion.preview(id);
  }

  @Post(':connectedSystemId/test-connection')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Test the connection',
    description:
      'Asks the connector to reach the system with the stored settings. A connector problem is success false with its message, never an error status.',
  })
  @ApiOkResponse({ type: TestConnectionResultDto })
  @ApiErrors(400, 404)
  testConnection(@Param('connectedSystemId', IntIdPipe) id: number) {
    return this.schema.testConnection(id);
  }

  @Post(':connectedSystemId/schema/import')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import the schema',
    description:
      'Discovers object types and attributes through the connector and merges them: new ones arrive unselected (a connector-suggested external ID ' +
      'is designated when the type has none), existing ones keep their selections, vanished ones are kept and flagged presentInSchema false. ' +
      'A connector failure is 400 BAD_REQUEST with the message (details.activityId names the failed activity).',
  })
  @ApiOkResponse({ type: SchemaImportResultDto })
  @ApiErrors(400, 404, 409)
  importSchema(@Param('connectedSystemId', IntIdPipe) id: number, @CurrentInitiator() initiator: Initiator) {
    return this.schema.importSchema(id, initiator);
  }
}
