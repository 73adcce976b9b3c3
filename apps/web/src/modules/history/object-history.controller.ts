import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { HistoryService } from '@meridian/application';
import { IntIdPipe, UuidPipe } from '@meridian/platform';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  CONNECTED_SYSTEM_ID_PARAM,
  ConnectorSpaceObjectChangePageDto,
  HistoryPageQueryDto,
  MetaverseObjectChangePageDto,
  uuidParam,
} from './dto/history.dto';

const PAGING =
  'Newest first (record id: UUID v7, time ordered). Paginated (pageSize default 50, max 1000) with items, totalCount, page and pageSize only. ' +
  'Attribute, system and run profile names are the current ones (null when gone).';

/** One object's change records, beside the object they describe (docs/api.md "History"). */
@ApiTags('History')
@Controller('api/v1')
@AdminEndpoint()
export class ObjectHistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get('metaverse/objects/:id/history')
  @ApiOperation({
    summary: "A metaverse object's history",
    description: `${PAGING} 404 only when the object does not exist and has no change record: a deleted object's history stays readable.`,
  })
  @ApiParam(uuidParam('id', 'The metaverse object (it may have been deleted).'))
  @ApiOkResponse({ type: MetaverseObjectChangePageDto })
  @ApiErrors(400, 404)
  metaverseObject(@Param('id', UuidPipe) id: string, @Query() query: HistoryPageQueryDto) {
    return this.history.metaverseObjectHistory(id, query);
  }

  @Get('synchronisation/connected-systems/:connectedSystemId/connector-space/:objectId/history')
  @ApiOperation({
    summary: "A connector space object's history",
    description:
      `${PAGING} 404 only when the system has no such object and no change record of it: ` + "a deleted object's history stays readable.",
  })
  @ApiParam(CONNECTED_SYSTEM_ID_PARAM)
  @ApiParam(uuidParam('objectId', 'The connector space object (it may have been deleted).'))
  @ApiOkResponse({ type: ConnectorSpaceObjectChangePageDto })
  @ApiErrors(400, 404)
  connectorSpaceObject(
    @Param('connectedSystemId', IntIdPipe) connectedSystemId: number,
    @Param('objectId', UuidPipe) objectId: string,
    @Query() query: HistoryPageQueryDto,
  ) {
    return this.history.connectorSpaceObjectHistory(connectedSystemId, objectId, query);
  }
}
