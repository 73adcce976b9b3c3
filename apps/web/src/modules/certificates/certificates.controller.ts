import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, StreamableFile } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CertificatesService, Initiator } from '@meridian/application';
import { UuidPipe } from '@meridian/platform';
import { AdminEndpoint, CurrentInitiator } from '../../http/endpoint.decorators';
import { ApiErrors } from '../../http/openapi';
import { CertificateDto, UpdateCertificateDto, UploadCertificateDto } from './dto/certificate.dto';

@ApiTags('Certificates')
@Controller('api/v1/certificates')
@AdminEndpoint()
export class CertificatesController {
  constructor(private readonly certificates: CertificatesService) {}

  @Get()
  @ApiOperation({
    summary: 'List trusted certificates',
    description: 'All trusted certificates, by name. A short configuration list: not paginated.',
  })
  @ApiOkResponse({ type: [CertificateDto] })
  list() {
    return this.certificates.list();
  }

  @Post()
  @ApiOperation({
    summary: 'Upload a trusted certificate',
    description:
      'PEM text in certificate or base64 DER in certificateBase64 (exactly one). ' +
      'The certificate is parsed and stored as PEM; a private key in the upload is refused; a certificate already trusted (same SHA-256 thumbprint) is 409.',
  })
  @ApiCreatedResponse({ type: CertificateDto })
  @ApiErrors(400, 409)
  upload(@Body() body: UploadCertificateDto, @CurrentInitiator() initiator: Initiator) {
    return this.certificates.upload(body, initiator);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a trusted certificate' })
  @ApiOkResponse({ type: CertificateDto })
  @ApiErrors(400, 404)
  get(@Param('id', UuidPipe) id: string) {
    return this.certificates.get(id);
  }

  @Get(':id/pem')
  @ApiOperation({ summary: 'Download the certificate as PEM' })
  @ApiOkResponse({ description: 'The certificate, PEM encoded.', content: { 'application/x-pem-file': { schema: { type: 'string' } } } })
  @ApiErrors(400, 404)
  async pem(@Param('id', UuidPipe) id: string): Promise<StreamableFile> {
    const { thumbprint, pem } = await this.certificates.pem(id);
    return new StreamableFile(Buffer.from(pem, 'utf8'), {
      type: 'application/x-pem-file',
      disposition: `attachment; filename="${thumbprint.slice(0, 16).toLowerCase()}.pem"`,
    });
  }

  @Patch(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Update name, notes or enabled state (spec 4.11)',
    description: 'All fields optional; only those present change.',
  })
  @ApiNoContentResponse({ description: 'Updated.' })
  @ApiErrors(400, 404)
  async update(
    @Param('id', UuidPipe) id: string,
    @Body() body: UpdateCertificateDto,
    @CurrentInitiator() initiator: Initiator,
  ): Promise<void> {
    await this.certificates.update(id, body, initiator);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a trusted certificate', description: 'Connectors stop trusting it from their next connection.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(400, 404)
  async remove(@Param('id', UuidPipe) id: string, @CurrentInitiator() initiator: Initiator): Promise<void> {
    await this.certificates.remove(id, initiator);
  }
}
