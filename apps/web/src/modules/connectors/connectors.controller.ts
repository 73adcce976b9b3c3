import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ConnectorRegistry } from '@meridian/connectors';
import { DomainError } from '@meridian/domain';
import { AdminEndpoint } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { ConnectorDto, connectorDto } from './dto/connector.dto';

@ApiTags('Connectors')
@Controller('api/v1/synchronisation/connectors')
@AdminEndpoint()
export class ConnectorsController {
  constructor(private readonly registry: ConnectorRegistry) {}

  @Get()
  @ApiOperation({
    summary: 'List the available connectors',
    description: 'Every connector this server can use for connected systems, with its capabilities and settings schema.',
  })
  @ApiOkResponse({ type: [ConnectorDto] })
  list(): ConnectorDto[] {
    return this.registry.list().map(connectorDto);
  }

  @Get(':type')
  @ApiOperation({
    summary: 'Get one connector',
    description: 'The connector with this type name (matched ignoring case), with its capabilities and settings schema.',
  })
  @ApiParam({ name: 'type', description: 'Connector type name.', example: 'File' })
  @ApiOkResponse({ type: ConnectorDto })
  @ApiErrors(404)
  get(@Param('type') type: string): ConnectorDto {
    const connector = this.registry.find(type);
    if (!connector) throw DomainError.notFound('Connector', type);
    return connectorDto(connector);
  }
}
