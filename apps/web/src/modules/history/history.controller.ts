import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { HistoryService } from '@meridian/application';
import { IntIdPipe } from '@meridian/platform';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import {
  CONNECTED_SYSTEM_ID_PARAM,
  ChangeRecordCountDto,
  DeletedCsoPageDto,
  DeletedCsoQueryDto,
  DeletedMvoPageDto,
  DeletedMvoQueryDto,
} from './dto/history.dto';

/** Spec 4.10: deleted objects and change record counts (docs/api.md "History"). */
@ApiTags('History')
@Controller('api/v1/history')
@AdminEndpoint()
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get('deleted-objects/cso')
  @ApiOperation({
    summary: 'List deleted connector space objects',
    description:
      'Deleted change records of connector space objects, newest first (changeTime, then record id). Filters combine (AND); ' +
      'fromDate and toDate are inclusive. Paginated (pageSize default 50, max 1000) with items, totalCount, page and pageSize only.',
  })
  @ApiOkResponse({ type: DeletedCsoPageDto })
  @ApiErrors(400)
  deletedConnectorSpaceObjects(@Query() query: DeletedCsoQueryDto) {
    return this.history.deletedConnectorSpaceObjects(query);
  }

  @Get('deleted-objects/mvo')
  @ApiOperation({
    summary: 'List deleted metaverse objects',
    description:
      'Deleted change records of metaverse objects, newest first (changeTime, then record id). Filters combine (AND); ' +
      'fromDate and toDate are inclusive. Paginated (pageSize default 50, max 1000) with items, totalCount, page and pageSize only.',
  })
  @ApiOkResponse({ type: DeletedMvoPageDto })
  @ApiErrors(400)
  deletedMetaverseObjects(@Query() query: DeletedMvoQueryDto) {
    return this.history.deletedMetaverseObjects(query);
  }

  @Get('connected-systems/:connectedSystemId/count')
  @ApiOperation({
    summary: 'Count the change records of a connected system',
    description: 'Every connector space object change record of the system, whatever its type. Unknown system: 404.',
  })
  @ApiParam(CONNECTED_SYSTEM_ID_PARAM)
  @ApiOkResponse({ type: ChangeRecordCountDto })
  @ApiErrors(400, 404)
  count(@Param('connectedSystemId', IntIdPipe) connectedSystemId: number) {
    return this.history.countForConnectedSystem(connectedSystemId);
  }
}
