// k8s/: schema validation (kubernetes-models, offline) plus the properties the deployment relies on.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  CONFIG_VARIABLES,
  describeRun,
  ENTRY_FILES,
  K8S,
  k8sFiles,
  loadManifests,
  loadYaml,
  ManifestDoc,
  Obj,
  podSpec,
  PROCESSES,
  repoPath,
  run,
  SECRET_VARIABLES,
  selects,
  which,
} from './support';

const NAMESPACE = 'meridian';
const SECRET_TEMPLATE = 'secret.template.yaml';
const docs = loadManifests();
const applied = docs.filter((d) => d.file !== SECRET_TEMPLATE);

function find(kind: string, name?: string): Obj[] {
  return applied.filter((d) => d.obj.kind === kind && (name === undefined || d.obj.metadata?.name === name)).map((d) => d.obj);
}
function one(kind: string, name: string): Obj {
  const found = find(kind, name);
  expect(found.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([`${kind}/${name}`]);
  return found[0];
}
const deployments = (): Obj[] => find('Deployment');
const workloads = (): Obj[] => [...find('Deployment'), ...find('Job')];
const config = (): Obj => one('ConfigMap', 'meridian-config');
const secretTemplate = (): Obj => {
  const t = docs.filter((d) => d.file === SECRET_TEMPLATE);
  expect(t).toHaveLength(1);
  return t[0].obj;
};
const label = (d: ManifestDoc): string => `${d.file}#${d.index} ${d.obj.kind}/${d.obj.metadata?.name}`;

describe('k8s manifests: schema', () => {
  let results: { file: string; index: number; kind: string; name: string; ok: boolean; error: string | null }[];

  beforeAll(() => {
    const r = run(process.execPath, [repoPath('tools/deploy-check/validate-k8s.mjs'), '--json', K8S]);
    expect(r.error).toBeUndefined();
    results = JSON.parse(r.stdout);
  });

  it('every document of every k8s/*.yaml validates against the Kubernetes schemas (kubernetes-models)', () => {
    expect(results.length).toBe(docs.length);
    const invalid = results.filter((r) => !r.ok).map((r) => `${r.file}#${r.index} ${r.kind}/${r.name}: ${r.error}`);
    expect(invalid).toEqual([]);
  });

  it('the validator rejects a wrong type and an unknown kind (it is not vacuous)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8s-bad-'));
    writeFileSync(
      join(dir, 'bad.yaml'),
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: x}',
        'spec:',
        '  replicas: two',
        '  selector: {matchLabels: {a: b}}',
        '  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}',
        '---',
        'apiVersion: v1',
        'kind: Bogus',
        'metadata: {name: y}',
        '',
      ].join('\n'),
    );
    const r = run(process.execPath, [repoPath('tools/deploy-check/validate-k8s.mjs'), '--json', dir]);
    expect(r.status).toBe(1);
    const bad = JSON.parse(r.stdout);
    expect(bad.map((b: Obj) => b.ok)).toEqual([false, false]);
    expect(bad[0].error).toMatch(/replicas must be integer/);
    expect(bad[1].error).toMatch(/unknown/);
  });
});

describe('k8s manifests: structure', () => {
  it('has the expected objects', () => {
    const names = applied.map((d) => `${d.obj.kind}/${d.obj.metadata?.name}`).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'Namespace/meridian',
        'ConfigMap/meridian-config',
        'Deployment/meridian-web',
        'Deployment/meridian-worker',
        'Deployment/meridian-scheduler',
        'Service/meridian-web',
        'Ingress/meridian',
        'Job/meridian-migrate',
        'HorizontalPodAutoscaler/meridian-worker',
        'PodDisruptionBudget/meridian-web',
        'PodDisruptionBudget/meridian-scheduler',
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it('kustomization.yaml lists every manifest except the Secret template, and only existing files', () => {
    const kustomization = loadYaml('k8s', 'kustomization.yaml');
    expect(kustomization.kind).toBe('Kustomization');
    expect(kustomization.namespace).toBe(NAMESPACE);
    const resources: string[] = kustomization.resources;
    for (const r of resources) expect(existsSync(join(K8S, r))).toBe(true);
    expect(new Set(resources).size).toBe(resources.length);
    const expected = k8sFiles().filter((f) => f !== 'kustomization.yaml' && f !== SECRET_TEMPLATE);
    expect([...resources].sort()).toEqual(expected);
    // Applying placeholders would overwrite the real Secret.
    expect(resources).not.toContain(SECRET_TEMPLATE);
  });

  it('every object is labelled part-of meridian and, except the Namespace, lives in the meridian namespace', () => {
    for (const d of docs) {
      expect({ what: label(d), partOf: d.obj.metadata?.labels?.['app.kubernetes.io/part-of'] }).toEqual({
        what: label(d),
        partOf: 'meridian',
      });
      if (d.obj.kind !== 'Namespace') expect({ what: label(d), ns: d.obj.metadata?.namespace }).toEqual({ what: label(d), ns: NAMESPACE });
    }
  });

  it('the Namespace enforces the restricted Pod Security Standard', () => {
    expect(one('Namespace', NAMESPACE).metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });
});

describe('k8s workloads (Deployments and the migration Job)', () => {
  it('run the one image with a known process as argument', () => {
    const images = new Set<string>();
    for (const w of workloads()) {
      const containers: Obj[] = podSpec(w).containers;
      expect(containers).toHaveLength(1);
      images.add(containers[0].image);
      expect(PROCESSES).toContain(containers[0].args?.[0]);
      expect(containers[0].command).toBeUndefined(); // keep the image's tini + entrypoint
    }
    expect(images.size).toBe(1);
    const processOf = (name: string): string => podSpec(workloads().find((w) => w.metadata.name === name)!).containers[0].args[0];
    expect(processOf('meridian-web')).toBe('web');
    expect(processOf('meridian-worker')).toBe('worker');
    expect(processOf('meridian-scheduler')).toBe('scheduler');
    expect(processOf('meridian-migrate')).toBe('migrate');
  });

  it('set resource requests (cpu and memory) and a memory limit on every container', () => {
    for (const w of workloads()) {
      for (const c of podSpec(w).containers as Obj[]) {
        const what = `${w.kind}/${w.metadata.name}/${c.name}`;
        expect({
          what,
          cpu: Boolean(c.resources?.requests?.cpu),
          memory: Boolean(c.resources?.requests?.memory),
          limit: Boolean(c.resources?.limits?.memory),
        }).toEqual({ what, cpu: true, memory: true, limit: true });
      }
    }
  });

  it('run as the non-root image user with a read-only root filesystem and no privileges', () => {
    for (const w of workloads()) {
      const spec = podSpec(w);
      const what = `${w.kind}/${w.metadata.name}`;
      expect({ what, ...spec.securityContext }).toMatchObject({
        what,
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect({ what, token: spec.automountServiceAccountToken }).toEqual({ what, token: false });
      for (const c of spec.containers as Obj[]) {
        expect({ what, ...c.securityContext }).toMatchObject({
          what,
          runAsNonRoot: true,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.securityContext.privileged).not.toBe(true);
      }
    }
  });

  it('mount writable emptyDirs at MERIDIAN_LOG_DIR (/var/log/meridian) and /tmp', () => {
    const logDir = config().data.MERIDIAN_LOG_DIR;
    expect(logDir).toBe('/var/log/meridian');
    for (const w of workloads()) {
      const spec = podSpec(w);
      for (const path of [logDir, '/tmp']) {
        const mount = (spec.containers[0].volumeMounts as Obj[]).find((m) => m.mountPath === path);
        expect({ what: `${w.metadata.name} ${path}`, mounted: Boolean(mount) }).toEqual({
          what: `${w.metadata.name} ${path}`,
          mounted: true,
        });
        const volume = (spec.volumes as Obj[]).find((v) => v.name === mount!.name);
        expect(volume?.emptyDir).toBeDefined();
        expect(mount!.readOnly).not.toBe(true);
      }
    }
  });

  it('mount every other writable directory the configuration names', () => {
    for (const w of deployments()) {
      const mounts = (podSpec(w).containers[0].volumeMounts as Obj[]).map((m) => m.mountPath);
      expect(mounts).toEqual(expect.arrayContaining([config().data.MERIDIAN_CONNECTOR_FILES_ROOT, config().data.MERIDIAN_SCRIPTS_ROOT]));
    }
  });

  it('take configuration from the ConfigMap and secrets from the Secret, through envFrom', () => {
    const secretName = secretTemplate().metadata.name;
    for (const w of workloads()) {
      const c = podSpec(w).containers[0];
      expect(c.envFrom).toEqual(
        expect.arrayContaining([{ configMapRef: { name: 'meridian-config' } }, { secretRef: { name: secretName } }]),
      );
      // Secrets never inline.
      for (const e of (c.env ?? []) as Obj[]) expect(SECRET_VARIABLES).not.toContain(e.name);
      expect(podSpec(w).enableServiceLinks).toBe(false);
    }
  });

  it('select their own pods', () => {
    for (const d of deployments()) expect(selects(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    // No two Deployments select each other's pods.
    for (const a of deployments())
      for (const b of deployments()) {
        if (a !== b) expect(selects(a.spec.selector.matchLabels, b.spec.template.metadata.labels)).toBe(false);
      }
  });
});

describe('web', () => {
  const web = (): Obj => one('Deployment', 'meridian-web');
  const container = (): Obj => podSpec(web()).containers[0];
  const portNumber = (port: string | number): number =>
    typeof port === 'number' ? port : (container().ports as Obj[]).find((p) => p.name === port)?.containerPort;

  it('listens on the configured PORT', () => {
    expect(config().data.PORT).toBe('8080');
    expect(container().ports).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'http', containerPort: 8080 })]));
  });

  it('has a liveness probe on /api/v1/health/live and a readiness probe on /api/v1/health/ready, on the web port', () => {
    const { livenessProbe, readinessProbe, startupProbe } = container();
    expect(livenessProbe.httpGet.path).toBe('/api/v1/health/live');
    expect(readinessProbe.httpGet.path).toBe('/api/v1/health/ready');
    expect(portNumber(livenessProbe.httpGet.port)).toBe(8080);
    expect(portNumber(readinessProbe.httpGet.port)).toBe(8080);
    expect(livenessProbe.httpGet.scheme ?? 'HTTP').toBe('HTTP');
    if (startupProbe) {
      expect(startupProbe.httpGet.path).toBe('/api/v1/health/live');
      expect(portNumber(startupProbe.httpGet.port)).toBe(8080);
    }
  });

  it('runs at least two replicas, updated without losing capacity', () => {
    expect(web().spec.replicas).toBeGreaterThanOrEqual(2);
    expect(web().spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
  });

  it('is exposed by a Service whose selector and target port match the pods', () => {
    const service = one('Service', 'meridian-web');
    expect(selects(service.spec.selector, web().spec.template.metadata.labels)).toBe(true);
    for (const p of service.spec.ports as Obj[]) expect(portNumber(p.targetPort)).toBe(8080);
  });

  it('is published by an Ingress with TLS for every host, routed to the web Service', () => {
    const ingress = one('Ingress', 'meridian');
    const service = one('Service', 'meridian-web');
    expect(ingress.spec.tls?.length).toBeGreaterThan(0);
    const tlsHosts = (ingress.spec.tls as Obj[]).flatMap((t) => {
      expect(t.secretName).toEqual(expect.any(String));
      return t.hosts as string[];
    });
    for (const rule of ingress.spec.rules as Obj[]) {
      expect(tlsHosts).toContain(rule.host);
      for (const p of rule.http.paths as Obj[]) {
        expect(p.backend.service.name).toBe(service.metadata.name);
        const servicePorts = service.spec.ports as Obj[];
        expect(servicePorts.some((sp) => sp.name === p.backend.service.port.name || sp.port === p.backend.service.port.number)).toBe(true);
      }
    }
  });
});

describe('worker and scheduler', () => {
  it.each(['worker', 'scheduler'])(
    '%s has no readiness probe and an exec liveness probe running docker/healthcheck.js for itself',
    (name) => {
      const c = podSpec(one('Deployment', `meridian-${name}`)).containers[0];
      expect(c.readinessProbe).toBeUndefined();
      expect(c.ports).toBeUndefined();
      expect(c.livenessProbe.exec.command).toEqual(['node', '/app/docker/healthcheck.js', name]);
      // The image copies docker/ to /app/docker.
      expect(existsSync(repoPath('docker', 'healthcheck.js'))).toBe(true);
    },
  );

  it('the HorizontalPodAutoscaler (autoscaling/v2) targets the worker Deployment, which leaves replicas to it', () => {
    const hpa = one('HorizontalPodAutoscaler', 'meridian-worker');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'meridian-worker' });
    one('Deployment', hpa.spec.scaleTargetRef.name);
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa.spec.maxReplicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);
    const worker = one('Deployment', 'meridian-worker');
    expect(worker.spec.replicas).toBeUndefined();
    // CPU utilisation is relative to the request.
    if ((hpa.spec.metrics as Obj[]).some((m) => m.resource?.name === 'cpu'))
      expect(podSpec(worker).containers[0].resources.requests.cpu).toBeDefined();
  });

  it('the scheduler runs two replicas (one leader)', () => {
    expect(one('Deployment', 'meridian-scheduler').spec.replicas).toBe(2);
  });
});

describe('PodDisruptionBudgets (policy/v1)', () => {
  it.each(['web', 'scheduler'])('%s has one that selects its pods and leaves at least one running', (name) => {
    const deployment = one('Deployment', `meridian-${name}`);
    const pdbs = find('PodDisruptionBudget').filter((p) => selects(p.spec.selector.matchLabels, deployment.spec.template.metadata.labels));
    expect(pdbs).toHaveLength(1);
    expect(pdbs[0].apiVersion).toBe('policy/v1');
    const { minAvailable, maxUnavailable } = pdbs[0].spec;
    if (minAvailable !== undefined) {
      expect(minAvailable).toBeGreaterThanOrEqual(1);
      expect(minAvailable).toBeLessThan(deployment.spec.replicas); // otherwise a drain can never proceed
    } else {
      expect(maxUnavailable).toBeGreaterThanOrEqual(1);
    }
  });

  it('every PodDisruptionBudget selects the pods of exactly one Deployment', () => {
    for (const p of find('PodDisruptionBudget')) {
      expect(deployments().filter((d) => selects(p.spec.selector.matchLabels, d.spec.template.metadata.labels))).toHaveLength(1);
    }
  });
});

describe('migration Job', () => {
  it('runs `migrate` once, without restarting in place, with a bounded number of retries', () => {
    const job = one('Job', 'meridian-migrate');
    expect(podSpec(job).restartPolicy).toBe('Never');
    expect(job.spec.backoffLimit).toBeGreaterThanOrEqual(1);
    expect(job.spec.activeDeadlineSeconds).toBeGreaterThan(0);
    expect(podSpec(job).containers[0].args).toEqual(['migrate']);
    expect(ENTRY_FILES.migrate).toBe('tools/migrate.js');
  });

  it('can be applied on its own by label, before the Deployments', () => {
    const job = one('Job', 'meridian-migrate');
    expect(job.metadata.labels['app.kubernetes.io/component']).toBe('migrate');
    const component = (value: string): string[] =>
      applied
        .filter((d) => d.obj.metadata?.labels?.['app.kubernetes.io/component'] === value)
        .map((d) => `${d.obj.kind}/${d.obj.metadata.name}`);
    // docs/operations.md: `kubectl apply -k k8s/ -l app.kubernetes.io/component=config`, then `=migrate`.
    expect(component('migrate')).toEqual(['Job/meridian-migrate']);
    expect(component('config')).toEqual(['ConfigMap/meridian-config']);
  });
});

describe('configuration', () => {
  it('the ConfigMap holds only known, non-secret variables as strings', () => {
    const data = config().data as Record<string, unknown>;
    for (const [key, value] of Object.entries(data)) {
      expect({ key, known: CONFIG_VARIABLES.includes(key), secret: SECRET_VARIABLES.includes(key), type: typeof value }).toEqual({
        key,
        known: true,
        secret: false,
        type: 'string',
      });
    }
  });

  it('the Secret template holds the secret variables, as placeholders only', () => {
    const secret = secretTemplate();
    expect(secret.kind).toBe('Secret');
    const values = secret.stringData as Record<string, string>;
    expect(Object.keys(values).sort()).toEqual([...SECRET_VARIABLES].sort());
    for (const [key, value] of Object.entries(values))
      expect({ key, placeholder: /REPLACE_WITH_/.test(value) }).toEqual({ key, placeholder: true });
    expect(secret.data).toBeUndefined();
  });

  it('no applied manifest is a Secret', () => {
    expect(find('Secret')).toEqual([]);
  });

  it('ConfigMap and Secret together cover the required configuration', () => {
    const keys = new Set([...Object.keys(config().data), ...Object.keys(secretTemplate().stringData)]);
    const optionalHere = ['MERIDIAN_ENCRYPTION_KEY_FILE', 'TLS_CERT_FILE', 'TLS_KEY_FILE'];
    expect(CONFIG_VARIABLES.filter((v) => !keys.has(v) && !optionalHere.includes(v))).toEqual([]);
  });
});

const kubectl = which('kubectl');
(kubectl ? describe : describe.skip)('kubectl kustomize (when kubectl is installed)', () => {
  it('builds the kustomization into the listed objects, all in the meridian namespace', () => {
    const r = run(kubectl!, ['kustomize', K8S]);
    expect(r.status === 0 ? '' : describeRun(r)).toBe('');
    const built = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
    expect(built).toHaveLength(applied.length);
    for (const o of built) if (o.kind !== 'Namespace') expect(o.metadata.namespace).toBe(NAMESPACE);
    const images = new Set(built.filter((o) => o.spec?.template?.spec).map((o) => o.spec.template.spec.containers[0].image));
    expect(images.size).toBe(1);
  });
});
