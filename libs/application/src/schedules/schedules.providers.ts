import type { Provider } from '@nestjs/common';

/** Services of this area, registered by ApplicationModule. */
export const SCHEDULES_PROVIDERS: Provider[] = [];
