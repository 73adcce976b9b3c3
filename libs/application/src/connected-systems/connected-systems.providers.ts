import type { Provider } from '@nestjs/common';

/** Services of this area, registered by ApplicationModule. */
export const CONNECTED_SYSTEMS_PROVIDERS: Provider[] = [];
