// docs/operations.md describes the procedures the deployment files assume.
import { existsSync } from 'node:fs';
import { readRepoFile, repoPath } from './support';

describe('docs/operations.md', () => {
  const text = readRepoFile('docs', 'operations.md');

  it('covers compose, Kubernetes, probes, scaling, TLS, logs and backups', () => {
    for (const heading of [
      /^## .*Docker Compose/im,
      /^## .*Kubernetes/im,
      /^## .*Probes/im,
      /^## .*Scaling/im,
      /^## .*TLS/im,
      /^## .*Logs/im,
      /^## .*Backups?/im,
    ]) {
      expect(text).toMatch(heading);
    }
  });

  it('runs the migration Job to completion before the Deployments', () => {
    const wait = text.indexOf('kubectl -n meridian wait --for=condition=complete job/meridian-migrate');
    const applyAll = text.indexOf('kubectl apply -k k8s/\n', wait);
    expect(wait).toBeGreaterThan(0);
    expect(applyAll).toBeGreaterThan(wait);
  });

  it('links only to files that exist', () => {
    for (const [, target] of text.matchAll(/\]\((?!https?:|#)([^)#]+)(?:#[^)]*)?\)/g)) {
      const resolved = repoPath('docs', target);
      expect({ target, exists: existsSync(resolved) }).toEqual({ target, exists: true });
    }
  });
});
