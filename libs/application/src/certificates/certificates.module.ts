import { Module } from '@nestjs/common';
import { CERTIFICATES_PROVIDERS } from './certificates.providers';

/** Trusted certificates. */
@Module({ providers: CERTIFICATES_PROVIDERS, exports: CERTIFICATES_PROVIDERS })
export class CertificatesServicesModule {}
