import { PendingDeletionStatus } from '@meridian/domain';
import { pendingDeletionStatus } from './pending-deletions.query';

describe('pendingDeletionStatus (spec 3.4)', () => {
  it.each<[number, boolean, PendingDeletionStatus]>([
    [2, true, PendingDeletionStatus.Deprovisioning],
    [1, false, PendingDeletionStatus.Deprovisioning],
    [0, true, PendingDeletionStatus.AwaitingGracePeriod],
    [0, false, PendingDeletionStatus.ReadyForDeletion],
  ])('%i joined object(s), eligible later: %s → %s', (count, eligibleLater, expected) => {
    expect(pendingDeletionStatus(count, eligibleLater)).toBe(expected);
  });
});
