import { Module } from '@nestjs/common';
import { CertificatesServicesModule } from '../certificates/certificates.module';
import { CONNECTED_SYSTEMS_PROVIDERS } from './connected-systems.providers';

/** Connected systems, their schema, run profiles, connector space and deletion. */
@Module({ imports: [CertificatesServicesModule], providers: CONNECTED_SYSTEMS_PROVIDERS, exports: CONNECTED_SYSTEMS_PROVIDERS })
export class ConnectedSystemsServicesModule {}
