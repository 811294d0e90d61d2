import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parse } from 'yaml';
import { CHART_DIR, HelmError, type Manifest, type Rendered, type Values, buildRenderer, helmNotes, helmTemplate, valuesValidator } from '../support/helm.js';

// CommonJS with a default export.
const addFormats = addFormatsModule.default;
const run = promisify(execFile);

/** The Kubernetes OpenAPI schema of every kind the chart may render, by apiVersion/kind (kubernetes-models). */
const MODELS: Record<string, Model> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': CustomResourceDefinition,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

type SchemaError = { instancePath: string; message?: string };

type Model = new (data: any) => { validate(): void };

function modelOf(manifest: Manifest): Model {
  const model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}: add its kubernetes-models class to MODELS`);
  return model;
}

function schemaErrors(manifest: Manifest, Model = modelOf(manifest)): SchemaError[] {
  try {
    new Model(manifest).validate();
    return [];
  } catch (err) {
    const errors = (err as { errors?: SchemaError[] }).errors;
    if (!errors) throw err;
    return errors;
  }
}

// No schema type (string, number, boolean, object, array, null) accepts a function, so a field the
// schema knows fails with it and an unknown one passes.
const PROBE = () => undefined;

/**
 * Fields the schema does not know (a misspelt `readOnlyRootFilesytem` validates, since the OpenAPI
 * schemas allow unknown fields; the API server drops it or, strictly, refuses it): each field is
 * replaced in turn by a value no schema type accepts, and must then fail validation at its path.
 */
function unknownFields(manifest: Manifest): string[] {
  const Model = modelOf(manifest);
  const unknown: string[] = [];
  const visit = (node: unknown, pointer: string) => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => visit(item, `${pointer}/${i}`));
    } else if (node !== null && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const value = record[key];
        record[key] = PROBE;
        const known = schemaErrors(manifest, Model).some((e) => e.instancePath === at);
        record[key] = value;
        if (known) visit(value, at);
        else unknown.push(at);
      }
    }
  };
  visit(manifest, '');
  return unknown;
}

const DATABASE_URL = 'postgres://lore:secret@postgres.databases:5432/lore';
const REQUIRED: Values = { secrets: { DATABASE_URL }, config: { PUBLIC_BASE_URL: 'https://lore.example.com' } };
const TEMPORAL: Values = { workflow: { engine: 'temporal' }, temporal: { address: 'temporal-frontend.temporal:7233', namespace: 'lore', tls: 'true' }, secrets: { TEMPORAL_API_KEY: 'a-temporal-cloud-key' } };
const MONITORING: Values = { metrics: { serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } }, prometheusRule: { enabled: true } } };

const VALUE_SETS: Record<string, Values[]> = {
  'required values only': [REQUIRED],
  'the Temporal worker': [REQUIRED, TEMPORAL],
  'an existing Secret': [{ existingSecret: 'lore-env', config: { PUBLIC_BASE_URL: 'https://lore.example.com' }, metrics: { tokenInExistingSecret: true } }, MONITORING],
  'ServiceMonitor and PrometheusRule': [REQUIRED, TEMPORAL, MONITORING, { secrets: { METRICS_TOKEN: 'm'.repeat(32) } }],
  'watched namespaces': [REQUIRED, { operator: { watchNamespaces: ['tenants-a', 'tenants-b'], leaseName: 'lore-leader' } }],
  'the operator disabled': [{ secrets: { DATABASE_URL }, operator: { enabled: false } }],
  'the autoscaler off': [REQUIRED, { api: { autoscaling: { enabled: false }, replicas: 1 } }],
  'an ingress': [
    { secrets: { DATABASE_URL } },
    { ingress: { enabled: true, className: 'nginx', annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '100m' }, hosts: [{ host: 'lore.example.org', paths: [{ path: '/', pathType: 'Prefix' }] }], tls: [{ secretName: 'lore-tls', hosts: ['lore.example.org'] }] } },
  ],
  'Keycloak, Qdrant, restricted egress and scheduling': [
    REQUIRED,
    {
      keycloak: { enabled: true, url: 'http://keycloak.keycloak:8080/', adminClientSecret: 'keycloak-client-secret' },
      config: { VECTOR_INDEX: 'qdrant', QDRANT_URL: 'http://qdrant.qdrant:6333', EMBEDDER: 'onnx', EMBEDDER_MODEL_DIR: '/models/e5' },
      secrets: { QDRANT_API_KEY: 'a-qdrant-key', ADMIN_TOKEN: 'a'.repeat(32) },
      networkPolicy: { restrictEgress: true, egressCIDRs: ['10.0.0.0/8', '172.16.0.10/32'], apiIngressFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }], metricsIngressFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }] },
      imagePullSecrets: [{ name: 'registry' }],
      image: { digest: `sha256:${'0'.repeat(64)}` },
      extraVolumes: [{ name: 'models', persistentVolumeClaim: { claimName: 'lore-models', readOnly: true } }],
      extraVolumeMounts: [{ name: 'models', mountPath: '/models', readOnly: true }],
      api: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'lore', effect: 'NoSchedule' }], nodeSelector: { pool: 'lore' }, topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'api' } } }], priorityClassName: 'lore' },
      migrations: { activeDeadlineSeconds: 1_000_000 },
      operator: { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'operator' } } } }] } } },
    },
  ],
};

const OPERATOR_RULES = [
  { apiGroups: ['lore.dev'], resources: ['tenants', 'subtenants'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
  { apiGroups: ['lore.dev'], resources: ['tenants/status', 'subtenants/status'], verbs: ['get', 'update', 'patch'] },
  { apiGroups: ['lore.dev'], resources: ['tenants/finalizers', 'subtenants/finalizers'], verbs: ['update'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

const leaseRules = (lease: string) => [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [lease], verbs: ['get', 'update'] },
];

const WORKLOAD_KINDS = ['Deployment', 'Job'];
const podSpecs = (r: Rendered) => WORKLOAD_KINDS.flatMap((kind) => r.ofKind(kind)).map((w) => ({ name: `${w.kind} ${w.metadata.name}`, template: w.spec.template }));
const container = (r: Rendered, deployment: string) => r.get('Deployment', deployment).spec.template.spec.containers[0];
const envOf = (c: any) => Object.fromEntries((c.env as Array<{ name: string; value?: string; valueFrom?: unknown }>).map((e) => [e.name, e.value ?? e.valueFrom]));
const readChartYaml = async (file: string): Promise<any> => parse(await readFile(path.join(CHART_DIR, file), 'utf8'));
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe('the Helm chart (rendered by a test renderer built on Go text/template + sprig)', function () {
  this.timeout(180_000);
  let binary: string;
  const rendered: Record<string, Rendered> = {};

  before(async () => {
    binary = await buildRenderer();
    await Promise.all(
      Object.entries(VALUE_SETS).map(async ([name, values]) => {
        rendered[name] = await helmTemplate(binary, values, { includeCrds: true });
      }),
    );
  });

  it('renders every value set into manifests that validate against the Kubernetes OpenAPI schemas, with no unknown field', () => {
    for (const [set, r] of Object.entries(rendered)) {
      assert.ok(r.manifests.length > 10, set);
      for (const { source, manifest } of r.manifests) {
        const where = `${set}: ${source}: ${manifest.kind} ${manifest.metadata?.name}`;
        assert.deepEqual(schemaErrors(manifest).map((e) => `${e.instancePath} ${e.message ?? ''}`), [], where);
        // Not the CRDs (crds.test.ts checks their schemas): kubernetes-models types nested JSONSchemaProps loosely.
        if (manifest.kind !== 'CustomResourceDefinition') assert.deepEqual(unknownFields(manifest), [], where);
        assert.match(manifest.metadata.name, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, where);
      }
    }
  });

  it('fails on a manifest of a kind no schema covers, rather than skipping it', () => {
    assert.throws(() => schemaErrors({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }), /no schema for example\.com\/v1 Widget/);
  });

  it('wires its objects together: selectors, ports, ServiceAccounts, ConfigMaps, Secrets, roles and targets exist', () => {
    for (const [set, r] of Object.entries(rendered)) {
      const workloads = WORKLOAD_KINDS.flatMap((kind) => r.ofKind(kind));
      const podLabels = workloads.map((w) => w.spec.template.metadata.labels as Record<string, string>);
      const portNames = (labels: Record<string, string>) => workloads.filter((w) => matches(labels, w.spec.template.metadata.labels)).flatMap((w) => w.spec.template.spec.containers.flatMap((c: any) => (c.ports ?? []).map((p: any) => p.name)));
      const names = (kind: string) => new Set(r.ofKind(kind).map((m) => m.metadata.name));
      const secrets = new Set([...names('Secret'), 'lore-env']);
      for (const service of r.ofKind('Service')) {
        assert.equal(podLabels.filter((l) => matches(service.spec.selector, l)).length, 1, `${set}: Service ${service.metadata.name} selects one workload`);
        for (const port of service.spec.ports) assert.ok(portNames(service.spec.selector).includes(port.targetPort), `${set}: Service ${service.metadata.name} targets ${port.targetPort}`);
      }
      for (const monitor of r.ofKind('ServiceMonitor')) {
        const services = r.ofKind('Service').filter((s) => matches(monitor.spec.selector.matchLabels, s.metadata.labels));
        assert.equal(services.length, 1, `${set}: ServiceMonitor ${monitor.metadata.name}`);
        assert.ok(services[0]!.spec.ports.some((p: any) => p.name === monitor.spec.endpoints[0].port));
      }
      for (const kind of ['PodDisruptionBudget', 'NetworkPolicy']) {
        for (const m of r.ofKind(kind)) {
          const selector = m.spec.selector?.matchLabels ?? m.spec.podSelector.matchLabels;
          assert.ok(podLabels.some((l) => matches(selector, l)), `${set}: ${kind} ${m.metadata.name} selects pods`);
        }
      }
      for (const hpa of r.ofKind('HorizontalPodAutoscaler')) assert.ok(names('Deployment').has(hpa.spec.scaleTargetRef.name));
      for (const ingress of r.ofKind('Ingress')) {
        for (const rule of ingress.spec.rules) for (const p of rule.http.paths) assert.ok(r.ofKind('Service').some((s) => s.metadata.name === p.backend.service.name && s.spec.ports.some((sp: any) => sp.name === p.backend.service.port.name)));
      }
      for (const w of workloads) {
        const spec = w.spec.template.spec;
        if (spec.serviceAccountName) assert.ok(names('ServiceAccount').has(spec.serviceAccountName), `${set}: ${w.metadata.name}'s ServiceAccount`);
        for (const c of spec.containers) {
          for (const from of c.envFrom ?? []) {
            if (from.configMapRef) assert.ok(names('ConfigMap').has(from.configMapRef.name), `${set}: ${w.metadata.name} ConfigMap ${from.configMapRef.name}`);
            if (from.secretRef) assert.ok(secrets.has(from.secretRef.name), `${set}: ${w.metadata.name} Secret ${from.secretRef.name}`);
          }
          for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) assert.ok(secrets.has(e.valueFrom.secretKeyRef.name));
          for (const mount of c.volumeMounts) assert.ok(spec.volumes.some((v: any) => v.name === mount.name));
        }
      }
      for (const binding of [...r.ofKind('RoleBinding'), ...r.ofKind('ClusterRoleBinding')]) {
        const role = r.ofKind(binding.roleRef.kind).find((m) => m.metadata.name === binding.roleRef.name && m.metadata.namespace === binding.metadata.namespace);
        assert.ok(role, `${set}: ${binding.kind} ${binding.metadata.name}'s ${binding.roleRef.kind}`);
        for (const subject of binding.subjects) assert.ok(names('ServiceAccount').has(subject.name) && subject.namespace === 'lore');
      }
    }
  });

  it('renders the components each value set asks for', () => {
    const kinds = (r: Rendered) => r.manifests.map((m) => `${m.manifest.kind} ${m.manifest.metadata.name}`);
    const base = kinds(rendered['required values only']!);
    for (const present of ['Deployment lore-api', 'Deployment lore-operator', 'HorizontalPodAutoscaler lore-api', 'PodDisruptionBudget lore-api', 'PodDisruptionBudget lore-operator', 'Service lore-api', 'ConfigMap lore', 'Secret lore', 'ConfigMap lore-dashboard', 'ClusterRole lore-lore-operator', 'Job lore-migrations', 'NetworkPolicy lore-api', 'NetworkPolicy lore-operator']) {
      assert.ok(base.includes(present), present);
    }
    for (const absent of ['Deployment lore-worker', 'Ingress lore-api', 'ServiceMonitor lore-api', 'PrometheusRule lore', 'NetworkPolicy lore-egress']) assert.ok(!base.includes(absent), absent);

    const temporal = rendered['the Temporal worker']!;
    assert.ok(kinds(temporal).includes('Deployment lore-worker') && kinds(temporal).includes('PodDisruptionBudget lore-worker'));
    assert.deepEqual(
      [temporal.get('ConfigMap', 'lore').data.WORKFLOW_ENGINE, temporal.get('ConfigMap', 'lore').data.TEMPORAL_ADDRESS, temporal.get('ConfigMap', 'lore').data.TEMPORAL_NAMESPACE, temporal.get('ConfigMap', 'lore').data.TEMPORAL_TLS],
      ['temporal', 'temporal-frontend.temporal:7233', 'lore', 'true'],
    );
    assert.equal(Buffer.from(temporal.get('Secret', 'lore').data.TEMPORAL_API_KEY, 'base64').toString(), 'a-temporal-cloud-key');

    const existing = rendered['an existing Secret']!;
    assert.deepEqual(existing.ofKind('Secret'), [], 'no Secret: the user made it');
    for (const { name, template } of podSpecs(existing)) assert.equal(template.spec.containers[0].envFrom.find((f: any) => f.secretRef).secretRef.name, 'lore-env', name);
    assert.deepEqual(existing.get('ServiceMonitor', 'lore-api').spec.endpoints[0].authorization, { type: 'Bearer', credentials: { name: 'lore-env', key: 'METRICS_TOKEN' } });

    const monitored = rendered['ServiceMonitor and PrometheusRule']!;
    assert.deepEqual(monitored.ofKind('ServiceMonitor').map((m) => m.metadata.name), ['lore-api', 'lore-worker', 'lore-operator']);
    assert.equal(monitored.get('ServiceMonitor', 'lore-api').metadata.labels.release, 'kube-prometheus-stack');
    assert.equal(monitored.get('ServiceMonitor', 'lore-api').spec.endpoints[0].authorization.credentials.name, 'lore');
    assert.equal(monitored.get('ServiceMonitor', 'lore-worker').spec.endpoints[0].authorization, undefined, 'the workers ask for no token');

    const watched = rendered['watched namespaces']!;
    assert.deepEqual(watched.ofKind('ClusterRole'), []);
    assert.deepEqual(watched.ofKind('Role').filter((m) => m.metadata.name === 'lore-operator').map((m) => m.metadata.namespace), ['tenants-a', 'tenants-b']);
    assert.equal(envOf(container(watched, 'lore-operator')).OPERATOR_WATCH_NAMESPACES, 'tenants-a,tenants-b');
    assert.equal(envOf(container(watched, 'lore-operator')).OPERATOR_LEASE_NAME, 'lore-leader');

    const noOperator = kinds(rendered['the operator disabled']!);
    assert.deepEqual(noOperator.filter((k) => k.includes('operator')), []);

    const fixed = rendered['the autoscaler off']!;
    assert.deepEqual(fixed.ofKind('HorizontalPodAutoscaler'), []);
    assert.equal(fixed.get('Deployment', 'lore-api').spec.replicas, 1);
    assert.equal(rendered['required values only']!.get('Deployment', 'lore-api').spec.replicas, undefined, 'the autoscaler owns the count');
    assert.deepEqual(fixed.ofKind('PodDisruptionBudget').map((m) => m.metadata.name), ['lore-operator'], 'no budget over a single API pod');

    const ingress = rendered['an ingress']!;
    assert.equal(ingress.get('Ingress', 'lore-api').spec.ingressClassName, 'nginx');
    assert.equal(ingress.get('ConfigMap', 'lore').data.PUBLIC_BASE_URL, 'https://lore.example.org', 'derived from the ingress');

    const keycloak = rendered['Keycloak, Qdrant, restricted egress and scheduling']!;
    const config = keycloak.get('ConfigMap', 'lore').data;
    assert.deepEqual([config.OAUTH_TOKEN_VERIFIER, config.OAUTH_JWKS_URL, config.OAUTH_ISSUER, config.VECTOR_INDEX, config.QDRANT_URL], ['jwks', 'http://keycloak.keycloak:8080/realms/lore/protocol/openid-connect/certs', 'http://keycloak.keycloak:8080/realms/lore', 'qdrant', 'http://qdrant.qdrant:6333']);
    const operatorEnv = envOf(container(keycloak, 'lore-operator'));
    assert.deepEqual(operatorEnv.KEYCLOAK_ADMIN_CLIENT_SECRET, { secretKeyRef: { name: 'lore-keycloak', key: 'KEYCLOAK_ADMIN_CLIENT_SECRET' } });
    assert.equal(operatorEnv.KEYCLOAK_REALM, 'lore');
    assert.ok(!JSON.stringify(keycloak.get('Deployment', 'lore-api')).includes('lore-keycloak'), "the API never sees Keycloak's admin credential");
    assert.equal(container(keycloak, 'lore-api').image, `lore@sha256:${'0'.repeat(64)}`);
    // Values are float64: printed as they are, a million would read 1e+06, which the API server refuses for an integer.
    assert.match(keycloak.manifests.find((m) => m.manifest.kind === 'Job')!.text, /\n {2}activeDeadlineSeconds: 1000000\n/);
  });

  it('opens the API on its port and the worker and the operator only on their metrics ports; egress only when restricted', () => {
    const r = rendered['ServiceMonitor and PrometheusRule']!;
    assert.deepEqual(r.get('NetworkPolicy', 'lore-api').spec.ingress, [{ ports: [{ port: 'http', protocol: 'TCP' }] }]);
    for (const name of ['lore-worker', 'lore-operator']) {
      assert.deepEqual(r.get('NetworkPolicy', name).spec.ingress, [{ ports: [{ port: 'metrics', protocol: 'TCP' }] }]);
      assert.deepEqual(r.get('NetworkPolicy', name).spec.policyTypes, ['Ingress'], 'egress open');
    }
    const restricted = rendered['Keycloak, Qdrant, restricted egress and scheduling']!;
    assert.equal(restricted.get('NetworkPolicy', 'lore-api').spec.ingress[0].from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'], 'ingress-nginx');
    const egress = restricted.get('NetworkPolicy', 'lore-egress').spec;
    assert.deepEqual(egress.policyTypes, ['Egress']);
    assert.deepEqual(egress.podSelector.matchLabels, { 'app.kubernetes.io/name': 'lore', 'app.kubernetes.io/instance': 'lore' }, 'every pod of the release, the migration Job included');
    assert.deepEqual(egress.egress, [
      { ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }] },
      { to: [{ ipBlock: { cidr: '10.0.0.0/8' } }, { ipBlock: { cidr: '172.16.0.10/32' } }] },
    ]);
  });

  it('validates values.yaml against values.schema.json, and rejects wrong enums, negative counts and unknown keys', async () => {
    const validate = await valuesValidator();
    const defaults: Values = await readChartYaml('values.yaml');
    assert.ok(validate(defaults), JSON.stringify(validate.errors));
    const withValues = (patch: (v: any) => void) => {
      const copy = structuredClone(defaults) as any;
      patch(copy);
      return copy;
    };
    const bad: Array<[string, Values, RegExp]> = [
      ['workflow.engine', withValues((v) => (v.workflow.engine = 'cron')), /\/workflow\/engine/],
      ['VECTOR_INDEX', withValues((v) => (v.config.VECTOR_INDEX = 'flat')), /\/config\/VECTOR_INDEX/],
      ['qdrant without its URL', withValues((v) => (v.config.VECTOR_INDEX = 'qdrant')), /\/config\/QDRANT_URL/],
      ['negative replicas', withValues((v) => (v.api.replicas = -1)), /\/api\/replicas/],
      ['a misspelt key', withValues((v) => (v.api.replica = 3)), /\/api.*additional/],
      ['an unknown top-level key', withValues((v) => (v.databaseUrl = DATABASE_URL)), /additional/],
      ['a number in config', withValues((v) => (v.config.JOB_CONCURRENCY = 4)), /\/config\/JOB_CONCURRENCY/],
      ['a short ADMIN_TOKEN', withValues((v) => (v.secrets.ADMIN_TOKEN = 'short')), /\/secrets\/ADMIN_TOKEN/],
      ['a DATABASE_URL of another database', withValues((v) => (v.secrets.DATABASE_URL = 'mysql://db/lore')), /\/secrets\/DATABASE_URL/],
      ['an invalid watched namespace', withValues((v) => (v.operator.watchNamespaces = ['Tenants'])), /\/operator\/watchNamespaces\/0/],
      ['an ingress without hosts', withValues((v) => ((v.ingress.enabled = true), (v.ingress.hosts = []))), /\/ingress\/hosts/],
      ['an autoscaler target above 100 %', withValues((v) => (v.api.autoscaling.targetCPUUtilizationPercentage = 150)), /targetCPUUtilizationPercentage/],
    ];
    for (const [what, values, where] of bad) {
      assert.equal(validate(values), false, what);
      assert.match(JSON.stringify(validate.errors), where, what);
    }
    // Helm checks the schema before rendering; so does the wrapper.
    await assert.rejects(helmTemplate(binary, [REQUIRED, { workflow: { engine: 'cron' } }]), (err: Error) => err instanceof HelmError && /schema[\s\S]*\/workflow\/engine/.test(err.message));
  });

  it('fails to render without DATABASE_URL (unless existingSecret), and on the other values it cannot do without', async () => {
    const failsWith = (values: Values[], message: RegExp, apiVersions?: string[]) =>
      assert.rejects(helmTemplate(binary, values, { ...(apiVersions && { apiVersions }) }), (err: Error) => err instanceof HelmError && message.test(err.message));
    await failsWith([{ config: { PUBLIC_BASE_URL: 'https://lore.example.com' } }], /^Error: execution error at \(lore\/templates\/[^)]+\): secrets\.DATABASE_URL is required: Lore's cluster topology runs on an external PostgreSQL/);
    await failsWith([REQUIRED, { workflow: { engine: 'temporal' } }], /temporal\.address is required with workflow\.engine=temporal/);
    await failsWith([{ secrets: { DATABASE_URL } }], /config\.PUBLIC_BASE_URL \(or config\.MCP_URL, or an ingress\) is required with the operator/);
    await failsWith([REQUIRED, { keycloak: { enabled: true, url: 'http://keycloak:8080' } }], /keycloak\.adminClientSecret \(or keycloak\.existingSecret\) is required/);
    await failsWith([REQUIRED, { config: { WORKFLOW_ENGINE: 'temporal' } }], /WORKFLOW_ENGINE is set by the chart/);
    await failsWith([REQUIRED, { config: { SMTP_URL: 'smtp://mail' } }], /config\.SMTP_URL is a secret: set secrets\.SMTP_URL instead/);
    await failsWith([REQUIRED, { api: { autoscaling: { minReplicas: 5, maxReplicas: 3 } } }], /minReplicas must not exceed/);
    await failsWith([REQUIRED, MONITORING], /need the Prometheus Operator's CRDs \(monitoring\.coreos\.com\/v1\)/, []);
    assert.ok(await helmTemplate(binary, [{ existingSecret: 'lore-env', config: { PUBLIC_BASE_URL: 'https://lore.example.com' } }]));
  });

  it('runs every container as non-root with a read-only root filesystem, no privilege escalation and no capabilities', () => {
    for (const [set, r] of Object.entries(rendered)) {
      for (const { name, template } of podSpecs(r)) {
        const spec = template.spec;
        assert.equal(spec.securityContext.runAsNonRoot, true, `${set}: ${name}`);
        assert.equal(spec.securityContext.runAsUser, 1000, `${set}: ${name}: the image's node user`);
        assert.equal(spec.securityContext.fsGroup, 1000);
        assert.deepEqual(spec.securityContext.seccompProfile, { type: 'RuntimeDefault' });
        assert.equal(spec.hostNetwork ?? false, false);
        for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
          assert.equal(c.securityContext.allowPrivilegeEscalation, false, `${set}: ${name}/${c.name}`);
          assert.equal(c.securityContext.readOnlyRootFilesystem, true);
          assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
          assert.equal(c.securityContext.capabilities.add, undefined);
          assert.equal(c.securityContext.privileged ?? false, false);
          // The read-only root leaves DATA_DIR and /tmp to emptyDirs.
          for (const dir of ['/data', '/tmp']) {
            const mount = c.volumeMounts.find((m: any) => m.mountPath === dir);
            assert.ok(spec.volumes.find((v: any) => v.name === mount.name).emptyDir, `${set}: ${name}: ${dir}`);
          }
          assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory, `${set}: ${name}: resources`);
        }
      }
    }
  });

  it('gives the API, the worker and the migration Job no Kubernetes token, and the operator exactly its RBAC rules', () => {
    for (const [set, r] of Object.entries(rendered)) {
      for (const sa of r.ofKind('ServiceAccount')) assert.equal(sa.automountServiceAccountToken, sa.metadata.name === 'lore-operator', `${set}: ${sa.metadata.name}`);
      for (const { name, template } of podSpecs(r)) {
        if (name !== 'Deployment lore-operator') assert.equal(template.spec.automountServiceAccountToken, false, `${set}: ${name}`);
      }
      for (const role of [...r.ofKind('Role'), ...r.ofKind('ClusterRole')]) {
        for (const rule of role.rules) for (const field of ['apiGroups', 'resources', 'verbs']) assert.ok(!rule[field].includes('*'), `${set}: ${role.kind} ${role.metadata.name}: no wildcard`);
      }
    }
    const cluster = rendered['required values only']!;
    assert.deepEqual(cluster.get('ClusterRole', 'lore-lore-operator').rules, OPERATOR_RULES);
    assert.deepEqual(cluster.get('ClusterRoleBinding', 'lore-lore-operator').subjects, [{ kind: 'ServiceAccount', name: 'lore-operator', namespace: 'lore' }]);
    assert.deepEqual(cluster.get('Role', 'lore-operator-leader-election').rules, leaseRules('lore-operator'));
    assert.equal(cluster.get('Role', 'lore-operator-leader-election').metadata.namespace, undefined, 'in the release namespace');
    const watched = rendered['watched namespaces']!;
    for (const role of watched.ofKind('Role').filter((m) => m.metadata.name === 'lore-operator')) assert.deepEqual(role.rules, OPERATOR_RULES);
    assert.deepEqual(watched.ofKind('RoleBinding').map((b) => `${b.metadata.namespace ?? 'lore'}/${b.metadata.name}`), ['tenants-a/lore-operator', 'tenants-b/lore-operator', 'lore/lore-operator-leader-election']);
    assert.deepEqual(watched.get('Role', 'lore-operator-leader-election').rules, leaseRules('lore-leader'));
    assert.deepEqual(rendered['the operator disabled']!.ofKind('ClusterRole'), []);
    assert.deepEqual(rendered['the operator disabled']!.ofKind('Role'), []);
  });

  it('probes the API, the worker and the operator on the paths and ports they serve', () => {
    const r = rendered['ServiceMonitor and PrometheusRule']!;
    const probe = (c: any, kind: string) => c[kind] && { path: c[kind].httpGet.path, port: c[kind].httpGet.port };
    const portOf = (c: any, name: string) => c.ports.find((p: any) => p.name === name).containerPort;

    const api = container(r, 'lore-api');
    assert.deepEqual(api.args, ['dist/api/main.js']);
    assert.deepEqual([probe(api, 'livenessProbe'), probe(api, 'readinessProbe'), probe(api, 'startupProbe')], [{ path: '/health/live', port: 'http' }, { path: '/health/ready', port: 'http' }, { path: '/health/live', port: 'http' }]);
    assert.equal(portOf(api, 'http'), 8080);
    assert.equal(envOf(api).PORT, '8080');
    assert.deepEqual(r.get('Service', 'lore-api').spec.ports, [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
    assert.equal(r.get('Service', 'lore-api').spec.type, 'ClusterIP');
    assert.deepEqual(r.get('HorizontalPodAutoscaler', 'lore-api').spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);

    const worker = container(r, 'lore-worker');
    assert.deepEqual(worker.args, ['dist/workflows/worker.js']);
    assert.deepEqual(probe(worker, 'livenessProbe'), { path: '/health/live', port: 'metrics' });
    assert.equal(portOf(worker, 'metrics'), 9464);
    assert.equal(envOf(worker).PORT, '9464', 'the worker serves /metrics and /health/live on PORT');

    const operator = container(r, 'lore-operator');
    assert.deepEqual(operator.args, ['dist/operator/main.js']);
    assert.deepEqual([probe(operator, 'livenessProbe'), probe(operator, 'readinessProbe')], [{ path: '/healthz', port: 'metrics' }, { path: '/readyz', port: 'metrics' }]);
    assert.equal(portOf(operator, 'metrics'), 8081);
    const env = envOf(operator);
    assert.equal(env.OPERATOR_PORT, '8081');
    assert.equal(env.OPERATOR_WATCH_NAMESPACES, '', 'every namespace');
    assert.equal(env.OPERATOR_LEASE_NAME, 'lore-operator');
    assert.deepEqual([env.POD_NAME, env.POD_NAMESPACE, env.OPERATOR_LEASE_NAMESPACE], [{ fieldRef: { fieldPath: 'metadata.name' } }, { fieldRef: { fieldPath: 'metadata.namespace' } }, { fieldRef: { fieldPath: 'metadata.namespace' } }]);
    assert.equal(env.KEYCLOAK_URL, undefined, "without Keycloak, MCP clients go to Lore's own authorization server");
    assert.equal(r.get('Deployment', 'lore-operator').spec.replicas, 2);
  });

  it('migrates the database in a pre-install/pre-upgrade hook Job that reads hook copies of the configuration', () => {
    const r = rendered['required values only']!;
    const job = r.get('Job', 'lore-migrations');
    assert.deepEqual(job.spec.template.spec.containers[0].args, ['dist/core/db/migrate.cli.js']);
    assert.equal(job.spec.template.spec.restartPolicy, 'Never');
    const hook = (m: Manifest) => m.metadata.annotations ?? {};
    assert.equal(hook(job)['helm.sh/hook'], 'pre-install,pre-upgrade');
    assert.equal(hook(job)['helm.sh/hook-delete-policy'], 'before-hook-creation,hook-succeeded');
    const copies = [r.get('ConfigMap', 'lore-migrations'), r.get('Secret', 'lore-migrations')];
    for (const copy of copies) {
      assert.equal(hook(copy)['helm.sh/hook'], 'pre-install,pre-upgrade');
      assert.ok(Number(hook(copy)['helm.sh/hook-weight']) < Number(hook(job)['helm.sh/hook-weight']), 'created before the Job');
    }
    assert.deepEqual(r.get('ConfigMap', 'lore-migrations').data, r.get('ConfigMap', 'lore').data);
    assert.deepEqual(r.get('Secret', 'lore-migrations').data, r.get('Secret', 'lore').data);
    assert.deepEqual(job.spec.template.spec.containers[0].envFrom, [{ configMapRef: { name: 'lore-migrations' } }, { secretRef: { name: 'lore-migrations' } }]);
    // The regular ConfigMap and Secret are no hooks: Helm manages them with the release.
    assert.equal(hook(r.get('ConfigMap', 'lore'))['helm.sh/hook'], undefined);
    const existing = rendered['an existing Secret']!;
    assert.deepEqual(existing.get('Job', 'lore-migrations').spec.template.spec.containers[0].envFrom[1], { secretRef: { name: 'lore-env' } });
  });

  it("ships the team's dashboard and alert rules unchanged", async () => {
    const r = rendered['ServiceMonitor and PrometheusRule']!;
    const dashboardFile = await readFile(path.join(CHART_DIR, 'files/grafana-dashboard.json'), 'utf8');
    const dashboard = r.get('ConfigMap', 'lore-dashboard');
    assert.equal(dashboard.data['lore.json'], dashboardFile.trim());
    assert.deepEqual(JSON.parse(dashboard.data['lore.json']), JSON.parse(dashboardFile));
    assert.equal(dashboard.metadata.labels.grafana_dashboard, '1');
    const relabelled = await helmTemplate(binary, [REQUIRED, { metrics: { grafanaDashboard: { labelKey: 'grafana', labelValue: 'lore', namespace: 'monitoring' } } }]);
    const moved = relabelled.get('ConfigMap', 'lore-dashboard');
    assert.deepEqual([moved.metadata.labels.grafana, moved.metadata.labels.grafana_dashboard, moved.metadata.namespace], ['lore', undefined, 'monitoring']);
    const rules = await readChartYaml('files/prometheus-rules.yaml');
    assert.deepEqual(r.get('PrometheusRule', 'lore').spec.groups, rules.groups);
  });

  it('rolls the pods when a setting or a secret changes, and only then', async () => {
    const checksums = async (values: Values[]) => {
      const r = await helmTemplate(binary, [REQUIRED, ...values]);
      return r.ofKind('Deployment').map((d) => d.spec.template.metadata.annotations['checksum/config'] as string);
    };
    const [base] = await checksums([]);
    assert.match(base!, /^[0-9a-f]{64}$/);
    assert.notEqual((await checksums([{ config: { LOG_LEVEL: 'debug' } }]))[0], base);
    assert.notEqual((await checksums([{ secrets: { DATABASE_URL: `${DATABASE_URL}?sslmode=require` } }]))[0], base);
    assert.equal((await checksums([{ api: { autoscaling: { maxReplicas: 20 } } }]))[0], base);
    assert.equal(new Set(await checksums([])).size, 1, 'every Deployment carries the same checksum');
  });

  it("ships crds/ identical to the repository's crds/ (npm run crds:generate writes both), as valid CustomResourceDefinitions", async () => {
    const repo = path.join(CHART_DIR, '../../crds');
    const files = (await readdir(repo)).filter((f) => f.endsWith('.yaml')).sort();
    assert.deepEqual((await readdir(path.join(CHART_DIR, 'crds'))).sort(), files);
    for (const file of files) assert.equal(await readFile(path.join(CHART_DIR, 'crds', file), 'utf8'), await readFile(path.join(repo, file), 'utf8'), `charts/lore/crds/${file} is stale: npm run crds:generate`);
    const crds = rendered['required values only']!.manifests.filter((m) => m.source.startsWith('lore/crds/'));
    assert.deepEqual(crds.map((m) => m.manifest.metadata.name).sort(), ['subtenants.lore.dev', 'tenants.lore.dev']);
  });

  it('has NOTES.txt on creating the first Tenant, with a sample and the example resources the CRDs accept', async () => {
    const notes = await helmNotes(binary, [REQUIRED]);
    assert.match(notes, /kubectl apply -n lore -f - <<'EOF'/);
    assert.match(notes, /kubectl get tenants/);
    assert.match(notes, /status\.apiKeySecretRef/);
    assert.match(notes, /port-forward svc\/lore-api 8080:80/);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const schemaOf = async (plural: string) => {
      const crd = await readChartYaml(`crds/${plural}.lore.dev.yaml`);
      return ajv.compile(crd.spec.versions[0].schema.openAPIV3Schema);
    };
    const tenant = await schemaOf('tenants');
    const sample = /<<'EOF'\n([\s\S]*?)\n\s*EOF/.exec(notes)![1]!.replace(/^ {2}/gm, '');
    const samples = [parse(sample), await readChartYaml('examples/tenant.yaml')];
    for (const resource of samples) {
      assert.equal(resource.kind, 'Tenant');
      assert.equal(resource.apiVersion, 'lore.dev/v1alpha1');
      assert.ok(tenant(resource), JSON.stringify(tenant.errors));
    }
    const subTenant = await readChartYaml('examples/subtenant.yaml');
    const subTenants = await schemaOf('subtenants');
    assert.equal(subTenants(subTenant), true, JSON.stringify(subTenants.errors));
    assert.equal(subTenant.spec.tenantRef.name, samples[1].metadata.name);
    const watched = await helmNotes(binary, VALUE_SETS['watched namespaces']);
    assert.match(watched, /kubectl apply -n tenants-a -f -/);
    assert.match(await helmNotes(binary, VALUE_SETS['the operator disabled']), /The operator is disabled/);
  });

  it("declares Lore's version as the chart's appVersion", async () => {
    const chart = await readChartYaml('Chart.yaml');
    const pkg = JSON.parse(await readFile(path.join(CHART_DIR, '../../package.json'), 'utf8')) as { version: string };
    assert.deepEqual([chart.apiVersion, chart.name, chart.version, chart.appVersion], ['v2', 'lore', '0.1.0', pkg.version]);
    assert.equal(container(rendered['required values only']!, 'lore-api').image, `lore:${pkg.version}`);
  });

  it("renders like Helm's engine where it matters: float values, null deletes, missing keys, required, fail, include, tpl, lookup", async () => {
    const chart = await mkdtemp(path.join(os.tmpdir(), 'lore-helm-probe-'));
    try {
      await mkdir(path.join(chart, 'templates'));
      await writeFile(path.join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: probe\nversion: 1.0.0\nappVersion: "2.0"\n');
      await writeFile(path.join(chart, 'values.yaml'), 'big: 1000000\nkept: a\ndropped: b\nnested: {x: 1}\n');
      await writeFile(path.join(chart, '.helmignore'), '*.skip\n');
      await writeFile(path.join(chart, 'notes.skip'), 'ignored');
      await writeFile(path.join(chart, 'templates/_helpers.tpl'), '{{- define "probe.name" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end }}');
      await writeFile(
        path.join(chart, 'templates/probe.yaml'),
        [
          'big: "{{ .Values.big }}"',
          'dropped: "{{ .Values.dropped }}"',
          'missing: "{{ .Values.nested.y }}"',
          'name: {{ include "probe.name" . }}',
          'tpl: {{ tpl "{{ .Values.kept }}-{{ .Template.Name }}" . }}',
          'lookup: {{ lookup "v1" "Secret" "ns" "name" | toJson }}',
          'helm: {{ .Release.Service }} {{ .Release.IsInstall }} {{ .Release.Revision }} {{ .Chart.AppVersion }} {{ .Capabilities.APIVersions.Has "apps/v1" }}',
          'ignored: "{{ .Files.Get "notes.skip" }}"',
          '---',
          '# only a comment, still a document',
          '---',
          '{{- if .Values.fail }}{{ fail "asked to fail" }}{{ end }}',
          '{{- if .Values.need }}{{ required "need is required" .Values.nothing }}{{ end }}',
        ].join('\n'),
      );
      await writeFile(path.join(chart, 'off.yaml'), 'dropped: null\n');
      const template = (...args: string[]) => run(binary, [...args, chart]).then((r) => r.stdout);
      const out = await template('-name=rel', '-f', path.join(chart, 'off.yaml'));
      assert.match(out, /^---\n# Source: probe\/templates\/probe\.yaml\nbig: "1e\+06"\ndropped: ""\nmissing: ""\nname: probe-rel\ntpl: a-probe\/templates\/probe\.yaml\nlookup: \{\}\nhelm: Helm true 1 2\.0 true\nignored: ""\n---\n# Source: probe\/templates\/probe\.yaml\n# only a comment, still a document\n$/);
      await writeFile(path.join(chart, 'fail.yaml'), 'fail: true\n');
      await assert.rejects(template('-f', path.join(chart, 'fail.yaml')), /Error: execution error at \(probe\/templates\/probe\.yaml:12:\d+\): asked to fail/);
      await writeFile(path.join(chart, 'need.yaml'), 'need: true\n');
      await assert.rejects(template('-f', path.join(chart, 'need.yaml')), /Error: execution error at \(probe\/templates\/probe\.yaml:13:\d+\): need is required/);
    } finally {
      await rm(chart, { recursive: true, force: true });
    }
  });
});
