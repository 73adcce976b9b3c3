import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Initiator, QueueProbesService } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';

class QueueProbeDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'date-time' }) requestedAt: string;
  @ApiPropertyOptional({ nullable: true, type: String }) requestedBy: string | null;
  @ApiPropertyOptional({ nullable: true, format: 'date-time', type: String }) processedAt: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'The worker (host:pid) that processed it.' }) processedBy:
    string | null;
  @ApiProperty({ enum: ['Queued', 'Processed'] }) status: string;
}

/** Lets an operator prove the web → Redis → worker → PostgreSQL path of a running deployment. */
@ApiTags('System')
@Controller('api/v1/system/queue-probes')
@AdminEndpoint()
export class QueueProbesController {
  constructor(private readonly probes: QueueProbesService) {}

  @ApiOperation({ summary: 'Start a queue probe' })
  @Post()
  @HttpCode(202)
  @ApiAcceptedResponse({ type: QueueProbeDto, description: 'Queued; poll GET until status is Processed.' })
  @ApiErrors(503)
  start(@CurrentInitiator() initiator: Initiator) {
    return this.probes.start(initiator);
  }

  @ApiOperation({ summary: 'Get a queue probe' })
  @Get(':id')
  @ApiOkResponse({ type: QueueProbeDto })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.probes.get(id);
  }
}
