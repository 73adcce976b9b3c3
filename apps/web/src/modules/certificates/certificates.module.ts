import { Module } from '@nestjs/common';
import { CertificatesServicesModule } from '@meridian/application';
import { CertificatesController } from './certificates.controller';

@Module({ imports: [CertificatesServicesModule], controllers: [CertificatesController] })
export class CertificatesModule {}
