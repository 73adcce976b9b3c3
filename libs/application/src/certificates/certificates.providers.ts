import type { Provider } from '@nestjs/common';
import { CertificatesService } from './certificates.service';

/** Services of this area, registered by the area module. */
export const CERTIFICATES_PROVIDERS: Provider[] = [CertificatesService];
