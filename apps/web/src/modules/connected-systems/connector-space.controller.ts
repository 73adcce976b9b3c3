import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConnectorSpaceQuery, PendingExportsQuery } from '@meridian/application';
import { IntIdPipe, UuidPipe } from '@meridian/platform';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  ConnectorSpaceListQueryDto,
  ConnectorSpaceObjectDetailDto,
  ConnectorSpacePageDto,
  PendingExportListQueryDto,
  PendingExportPageDto,
} from './dto/connector-space.dto';

/** What the engine holds for a connected system: its connector space objects and staged exports (docs/connector-space.md). */
@ApiTags('Connected systems')
@Controller('api/v1/synchronisation/connected-systems/:connectedSystemId')
@AdminEndpoint()
export class ConnectorSpaceController {
  constructor(
    private readonly connectorSpace: ConnectorSpaceQuery,
    private readonly pendingExports: PendingExportsQuery,
  ) {}

  @Get('connector-space')
  @ApiOperation({
    summary: 'List connector space objects',
    description:
      'Paginated (pageSize default 25, max 100), ordered by id. Filters combine (AND). Counting stops 1,000 matches past the start of the page ' +
      '(totalCountIsExact). Unknown system: 404.',
  })
  @ApiOkResponse({ type: ConnectorSpacePageDto })
  @ApiErrors(400, 404)
  list(@Param('connectedSystemId', IntIdPipe) systemId: number, @Query() query: ConnectorSpaceListQueryDto) {
    return this.connectorSpace.list(systemId, query);
  }

  @Get('connector-space/:objectId')
  @ApiOperation({
    summary: 'Get a connector space object',
    description:
      'Its attribute values by name, resolved references, the joined metaverse object and its pending exports. ' +
      '404 when the system or the object does not exist, or the object belongs to another system.',
  })
  @ApiOkResponse({ type: ConnectorSpaceObjectDetailDto })
  @ApiErrors(400, 404)
  get(@Param('connectedSystemId', IntIdPipe) systemId: number, @Param('objectId', UuidPipe) objectId: string) {
    return this.connectorSpace.get(systemId, objectId);
  }

  @Get('pending-exports')
  @ApiOperation({
    summary: 'List pending exports',
    description:
      'Staged changes of the system, paginated (pageSize default 25, max 100), ordered by id, with their attribute changes, retries and last error. ' +
      'Unknown system: 404.',
  })
  @ApiOkResponse({ type: PendingExportPageDto })
  @ApiErrors(400, 404)
  listPendingExports(@Param('connectedSystemId', IntIdPipe) systemId: number, @Query() query: PendingExportListQueryDto) {
    return this.pendingExports.list(systemId, query);
  }
}
