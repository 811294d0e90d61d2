{{/*
Numbers in values are float64 (Helm reads YAML through JSON) and print as 1e+06 from a million:
templates print counts, ports and durations through `int`.
*/}}
{{/* The chart's name, or nameOverride. */}}
{{- define "lore.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The start of every resource name: the release name, followed by the chart's unless it holds it already. */}}
{{- define "lore.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* A component's resource name: (dict "root" $ "component" "api"). */}}
{{- define "lore.componentName" -}}
{{- printf "%s-%s" (include "lore.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "lore.selectorLabels" -}}
app.kubernetes.io/name: {{ include "lore.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "lore.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "lore.selectorLabels" . }}
app.kubernetes.io/version: {{ include "lore.imageTag" . | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* (dict "root" $ "component" "api") */}}
{{- define "lore.componentSelectorLabels" -}}
{{ include "lore.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* (dict "root" $ "component" "api") */}}
{{- define "lore.componentLabels" -}}
{{ include "lore.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "lore.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{- define "lore.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (include "lore.imageTag" .) }}
{{- end }}
{{- end }}

{{/* The Secret holding Lore's secret settings: the user's, or the chart's. */}}
{{- define "lore.secretName" -}}
{{- default (include "lore.fullname" .) .Values.existingSecret }}
{{- end }}

{{- define "lore.keycloakSecretName" -}}
{{- default (include "lore.componentName" (dict "root" . "component" "keycloak")) .Values.keycloak.existingSecret }}
{{- end }}

{{- define "lore.temporal" -}}
{{- eq .Values.workflow.engine "temporal" | ternary "true" "" }}
{{- end }}

{{/*
The checks across values the schema cannot express, in one place and one order, so the first
missing value is the one reported whichever template renders first. lore.configData runs them.
*/}}
{{- define "lore.validate" -}}
{{- if not .Values.existingSecret }}
{{- $_ := required "secrets.DATABASE_URL is required: Lore's cluster topology runs on an external PostgreSQL (postgres://user:password@host:5432/lore). Or set existingSecret to a Secret that holds DATABASE_URL." .Values.secrets.DATABASE_URL }}
{{- end }}
{{- $reserved := list "PORT" "HOST" "DATA_DIR" "WORKFLOW_ENGINE" "TEMPORAL_ADDRESS" "TEMPORAL_NAMESPACE" "TEMPORAL_TASK_QUEUE" "TEMPORAL_TLS" "OPERATOR_PORT" "OPERATOR_WATCH_NAMESPACES" "OPERATOR_LEASE_NAME" "OPERATOR_LEASE_NAMESPACE" "POD_NAMESPACE" "POD_NAME" "KEYCLOAK_URL" "KEYCLOAK_REALM" "KEYCLOAK_ADMIN_CLIENT_ID" "KEYCLOAK_ADMIN_CLIENT_SECRET" }}
{{- if .Values.keycloak.enabled }}
{{- $reserved = concat $reserved (list "OAUTH_TOKEN_VERIFIER" "OAUTH_JWKS_URL" "OAUTH_ISSUER") }}
{{- end }}
{{- range $key := $reserved }}
{{- if or (hasKey $.Values.config $key) (hasKey $.Values.secrets $key) }}
{{- fail (printf "%s is set by the chart from its own values (workflow, temporal, keycloak, operator, worker); remove it from config and secrets" $key) }}
{{- end }}
{{- end }}
{{- range $key, $_ := .Values.config }}
{{- if hasKey $.Values.secrets $key }}
{{- fail (printf "config.%s is a secret: set secrets.%s instead" $key $key) }}
{{- end }}
{{- end }}
{{- if include "lore.temporal" . }}
{{- $_ := required "temporal.address is required with workflow.engine=temporal: the Temporal frontend's host:port, e.g. temporal-frontend.temporal:7233" .Values.temporal.address }}
{{- end }}
{{- if .Values.keycloak.enabled }}
{{- $_ := required "keycloak.url is required with keycloak.enabled, e.g. http://keycloak.keycloak:8080" .Values.keycloak.url }}
{{- if and .Values.operator.enabled (not .Values.keycloak.existingSecret) }}
{{- $_ := required "keycloak.adminClientSecret (or keycloak.existingSecret) is required with keycloak.enabled: the operator's client secret in the realm" .Values.keycloak.adminClientSecret }}
{{- end }}
{{- end }}
{{- if and .Values.operator.enabled (not (or .Values.config.PUBLIC_BASE_URL .Values.config.MCP_URL .Values.ingress.enabled)) }}
{{- fail "config.PUBLIC_BASE_URL (or config.MCP_URL, or an ingress) is required with the operator: each tenant's MCP client gets the MCP URL as its tokens' audience" }}
{{- end }}
{{- if and .Values.api.autoscaling.enabled (gt (int .Values.api.autoscaling.minReplicas) (int .Values.api.autoscaling.maxReplicas)) }}
{{- fail "api.autoscaling.minReplicas must not exceed api.autoscaling.maxReplicas" }}
{{- end }}
{{- end }}

{{/* The environment of the ConfigMap: config, plus what the chart derives from its other values. */}}
{{- define "lore.configData" -}}
{{- include "lore.validate" . }}
{{- $env := dict }}
{{- range $key, $value := .Values.config }}
{{- if $value }}
{{- $_ := set $env $key (toString $value) }}
{{- end }}
{{- end }}
{{- $_ := set $env "WORKFLOW_ENGINE" .Values.workflow.engine }}
{{- if include "lore.temporal" . }}
{{- $_ := set $env "TEMPORAL_ADDRESS" .Values.temporal.address }}
{{- $_ := set $env "TEMPORAL_NAMESPACE" .Values.temporal.namespace }}
{{- $_ := set $env "TEMPORAL_TASK_QUEUE" .Values.temporal.taskQueue }}
{{- if ne .Values.temporal.tls "auto" }}
{{- $_ := set $env "TEMPORAL_TLS" .Values.temporal.tls }}
{{- end }}
{{- end }}
{{- if .Values.keycloak.enabled }}
{{- $realm := printf "%s/realms/%s" (trimSuffix "/" .Values.keycloak.url) .Values.keycloak.realm }}
{{- $_ := set $env "OAUTH_TOKEN_VERIFIER" "jwks" }}
{{- $_ := set $env "OAUTH_JWKS_URL" (printf "%s/protocol/openid-connect/certs" $realm) }}
{{- $_ := set $env "OAUTH_ISSUER" (default $realm .Values.keycloak.issuer) }}
{{- end }}
{{- if and .Values.ingress.enabled (not (hasKey $env "PUBLIC_BASE_URL")) }}
{{- with first .Values.ingress.hosts }}
{{- $_ := set $env "PUBLIC_BASE_URL" (printf "https://%s" .host) }}
{{- end }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/* The chart's Secret data (base64), without empty values. */}}
{{- define "lore.secretData" -}}
{{- $data := dict }}
{{- range $key, $value := .Values.secrets }}
{{- if $value }}
{{- $_ := set $data $key (toString $value | b64enc) }}
{{- end }}
{{- end }}
{{- toYaml $data }}
{{- end }}

{{/* Changes when anything the chart puts in Lore's environment changes, so pods roll. */}}
{{- define "lore.configChecksum" -}}
{{- $secrets := "" }}
{{- if not .Values.existingSecret }}
{{- $secrets = include "lore.secretData" . }}
{{- end }}
{{- list (include "lore.configData" .) $secrets .Values.keycloak.adminClientSecret | toJson | sha256sum }}
{{- end }}

{{/* Lore's environment, for every container that runs Lore. */}}
{{- define "lore.envFrom" -}}
- configMapRef:
    name: {{ include "lore.fullname" . }}
- secretRef:
    name: {{ include "lore.secretName" . }}
{{- end }}

{{/* What every pod shares: pull secrets, security context, scheduling. (dict "root" $ "values" .Values.api) */}}
{{- define "lore.podCommon" -}}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* A container's image, security context and writable directories. (dict "root" $ "extra" true) */}}
{{- define "lore.containerCommon" -}}
image: {{ include "lore.image" .root }}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
securityContext:
  {{- toYaml .root.Values.containerSecurityContext | nindent 2 }}
volumeMounts:
  - name: data
    mountPath: /data
  - name: tmp
    mountPath: /tmp
  {{- if .extra }}
  {{- with .root.Values.extraVolumeMounts }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{- end }}
{{- end }}

{{/* (dict "root" $ "extra" true) */}}
{{- define "lore.volumes" -}}
volumes:
  - name: data
    emptyDir:
      sizeLimit: {{ .root.Values.emptyDir.dataSizeLimit }}
  - name: tmp
    emptyDir:
      sizeLimit: {{ .root.Values.emptyDir.tmpSizeLimit }}
  {{- if .extra }}
  {{- with .root.Values.extraVolumes }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
  {{- end }}
{{- end }}

{{/* A PodDisruptionBudget, rendered only when at least two pods run: over one pod it would block every drain. */}}
{{/* (dict "root" $ "component" "api" "values" .Values.api "minReplicas" 2) */}}
{{- define "lore.pdb" -}}
{{- if and .values.podDisruptionBudget.enabled (gt (int .minReplicas) 1) }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "lore.componentName" . }}
  labels:
    {{- include "lore.componentLabels" . | nindent 4 }}
spec:
  minAvailable: {{ .values.podDisruptionBudget.minAvailable | int }}
  selector:
    matchLabels:
      {{- include "lore.componentSelectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/* A component's ServiceAccount. (dict "root" $ "component" "api" "values" .Values.api "automount" false) */}}
{{- define "lore.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "lore.componentName" . }}
  labels:
    {{- include "lore.componentLabels" . | nindent 4 }}
  {{- with .values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: {{ .automount }}
{{- end }}

{{/* The operator's rules on the resources it reconciles, in a ClusterRole or in each watched namespace's Role. */}}
{{- define "lore.operatorRules" -}}
- apiGroups: [lore.dev]
  resources: [tenants, subtenants]
  verbs: [get, list, watch, update, patch]
- apiGroups: [lore.dev]
  resources: [tenants/status, subtenants/status]
  verbs: [get, update, patch]
- apiGroups: [lore.dev]
  resources: [tenants/finalizers, subtenants/finalizers]
  verbs: [update]
# The API-key and OAuth-client Secrets it writes beside each Tenant.
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create, patch]
{{- end }}

{{- define "lore.operatorLeaseName" -}}
{{- default (include "lore.componentName" (dict "root" . "component" "operator")) .Values.operator.leaseName }}
{{- end }}

{{/* The Prometheus Operator's kinds need its CRDs: say so instead of failing at install with "no matches for kind". */}}
{{- define "lore.requireMonitoringAPI" -}}
{{- if not (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1") }}
{{- fail "metrics.serviceMonitor and metrics.prometheusRule need the Prometheus Operator's CRDs (monitoring.coreos.com/v1), which this cluster does not serve; install them, or with helm template pass --api-versions monitoring.coreos.com/v1" }}
{{- end }}
{{- end }}
