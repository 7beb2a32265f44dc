{{/* The one image every Elastic GPU command runs from. */}}
{{- define "egpu.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* Labels on every object; component is the extender, scheduler, node-agent, controller or monitoring. */}}
{{- define "egpu.labels" -}}
app.kubernetes.io/name: elastic-gpu
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/component: {{ .component }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* What a component's selector and its pods share. */}}
{{- define "egpu.selector" -}}
app.kubernetes.io/name: elastic-gpu
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* A Java process that cannot write outside /tmp and runs as an unprivileged user. */}}
{{- define "egpu.restrictedSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The extender's URL for kube-scheduler: always the loopback address of the pod or host the two share. */}}
{{- define "egpu.extenderUrl" -}}
http://127.0.0.1:{{ .Values.extender.port }}
{{- end -}}

{{/* The ServiceAccount of the pods the extender runs in: the second scheduler's, or its own DaemonSet's. */}}
{{- define "egpu.extenderServiceAccount" -}}
{{ ternary .Values.secondScheduler.schedulerName "elastic-gpu-extender" .Values.secondScheduler.enabled }}
{{- end -}}

{{/*
The extender container, the same beside the second scheduler and in the DaemonSet beside the default one. The verbs
(filter, prioritize, bind) are served on 127.0.0.1 only, so that nothing outside the pod (or host) can call /bind;
/metrics and the probes are also served on the metrics port, which serves nothing else.
*/}}
{{- define "egpu.extenderContainer" -}}
- name: extender
  image: {{ include "egpu.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  # Its settings are in the ConfigMap elastic-gpu-extender-config (egpu.extenderConfig).
  args:
  - scheduler
  - --config
  - /etc/egpu/config.yaml
  env:
  - name: JAVA_TOOL_OPTIONS
    value: {{ .Values.extender.javaToolOptions | quote }}
  ports:
  - name: ext-metrics
    containerPort: {{ .Values.extender.metricsPort }}
  # Ready once the node and pod caches have synced.
  readinessProbe:
    httpGet: {path: /readyz, port: ext-metrics}
    periodSeconds: 5
  livenessProbe:
    httpGet: {path: /healthz, port: ext-metrics}
    initialDelaySeconds: 20
    periodSeconds: 10
    failureThreshold: 3
  resources: {{- toYaml .Values.extender.resources | nindent 4 }}
  securityContext: {{- include "egpu.restrictedSecurityContext" . | nindent 4 }}
  volumeMounts:
  - {name: extender-tmp, mountPath: /tmp}
  - {name: extender-config, mountPath: /etc/egpu, readOnly: true}
  {{- if .Values.gpuModels }}
  - {name: gpu-models, mountPath: /etc/elastic-gpu/models, readOnly: true}
  {{- end }}
{{- end -}}

{{/* The extender's configuration file (docs/reference/configuration.md): ConfigMap elastic-gpu-extender-config, mounted
at /etc/egpu in every pod the extender runs in. */}}
{{- define "egpu.extenderConfig" -}}
version: v1
scheduler:
  # The verbs on loopback only, beside kube-scheduler; metrics and probes on every address.
  listen: 127.0.0.1:{{ .Values.extender.port }}
  metricsListen: 0.0.0.0:{{ .Values.extender.metricsPort }}
  policy: {{ .Values.policy | quote }}
  memoryBlockMib: {{ .Values.memoryBlockMib }}
  aliyunUnitMib: {{ .Values.aliyunUnitMib }}
  ledgerNamespace: {{ .Release.Namespace }}
  {{- if .Values.gpuModels }}
  modelTable: /etc/elastic-gpu/models/gpu-models.csv
  {{- end }}
{{- end -}}

{{/* The controller's configuration file (docs/reference/configuration.md): ConfigMap elastic-gpu-controller-config. */}}
{{- define "egpu.controllerConfig" -}}
version: v1
controller:
  namespaceForLease: {{ .Release.Namespace }}
  webhookService: elastic-gpu-webhook
  webhookListen: 0.0.0.0:{{ .Values.controller.webhookPort }}
  httpListen: 0.0.0.0:{{ .Values.controller.httpPort }}
  # What the webhook checks of pods asking GPU slices, as the node agents hold them: their isolation (with mps, a
  # share MPS cannot hold, without memory or too small to divide among the pod's elasticgpu.io/gpu-processes beyond
  # the CUDA context reserve, is refused at creation), context reserve and units.
  isolation: {{ .Values.isolation }}
  mpsContextReserveMib: {{ .Values.mps.contextReserveMib }}
  memoryBlockMib: {{ .Values.memoryBlockMib }}
  aliyunUnitMib: {{ .Values.aliyunUnitMib }}
  {{- if .Values.gpuModels }}
  # The operator's card models, as the extender reads them: the webhook's MPS check of TFLOPS asks and the
  # dashboard's free TFLOPS use the same table.
  modelTable: /etc/elastic-gpu/models/gpu-models.csv
  {{- end }}
{{- end -}}

{{/* A node agent's configuration file (docs/reference/configuration.md): ConfigMap <daemonset>-config. Called with
root (the chart's context) and api (device-plugin or dra). */}}
{{- define "egpu.nodeAgentConfig" -}}
{{- $v := .root.Values }}
{{- $mps := eq $v.isolation "mps" -}}
version: v1
nodeAgent:
  api: {{ .api }}
  backend: {{ $v.nodeAgent.backend }}
  {{- if eq $v.nodeAgent.backend "simulated" }}
  simulatedGpus: /etc/elastic-gpu/gpus.yaml
  {{- end }}
  memoryBlockMib: {{ $v.memoryBlockMib }}
  aliyunUnitMib: {{ $v.aliyunUnitMib }}
  mode: {{ $v.sharingMode }}
  {{- if eq $v.sharingMode "replicas" }}
  replicas: {{ $v.replicasPerCard }}
  {{- end }}
  compatibility: {{ $v.resourceNames.compatibility }}
  isolation: {{ $v.isolation }}
  mpsContextReserveMib: {{ $v.mps.contextReserveMib }}
  {{- if not $v.nodeAgent.usage.enabled }}
  # Without the host's pid namespace the agent cannot tell whose a GPU process is: it measures nothing.
  usageInterval: PT0S
  {{- end }}
  {{- if $mps }}
  mpsRoot: {{ $v.mps.root | quote }}
  mpsControl: {{ $v.mps.control | quote }}
  mpsLayout: {{ $v.mps.layout }}
  mpsShmMib: {{ $v.mps.shmMib }}
  nvidiaSmi: {{ $v.mps.nvidiaSmi | quote }}
  # The daemons run on the host, in a cgroup of their own, so that they outlive the agent's container and the
  # processes they serve keep their shares while the agent restarts or is upgraded.
  mpsHostNamespaces: true
  mpsCgroupRoot: /sys/fs/cgroup
  {{- end }}
  {{- if eq .api "dra" }}
  draPluginDir: {{ $v.nodeAgent.draConfig.pluginDir | quote }}
  pluginRegistrationDir: {{ $v.nodeAgent.draConfig.registrationDir | quote }}
  cdiDir: {{ $v.nodeAgent.draConfig.cdiDir | quote }}
  {{- else }}
  devicePluginDir: {{ $v.nodeAgent.deviceConfig.devicePluginDir | quote }}
  podResourcesSocket: {{ printf "%s/kubelet.sock" $v.nodeAgent.deviceConfig.podResourcesDir | quote }}
  {{- end }}
  metricsListen: 0.0.0.0:{{ $v.nodeAgent.metricsPort }}
{{- end -}}

{{/* The extender's configuration volume, beside extender-tmp. */}}
{{- define "egpu.extenderConfigVolume" -}}
- name: extender-config
  configMap:
    name: elastic-gpu-extender-config
{{- end -}}

{{/* The volume of the operator's model table (values gpuModels): the extender's, beside extender-tmp, and the
controller's. */}}
{{- define "egpu.gpuModelsVolume" -}}
{{- if .Values.gpuModels }}
- name: gpu-models
  configMap:
    name: {{ .Release.Name }}-elastic-gpu-models
{{- end }}
{{- end -}}

{{/* The extender stanza of a KubeSchedulerConfiguration; the same for the second scheduler and the default one. */}}
{{- /*
Pods of this scheduler that ask no GPU: with no managedResources the extender is asked about every pod (GPU pods
pass through again with the one node already chosen). It sends them to nodes without GPUs when any fit, else to
the GPU node the policy ranks best; kube-scheduler's own scores would spread them over the emptiest GPU nodes and
take the CPU and memory that whole-card pods need there. kube-scheduler binds them itself. Ignorable: without the
extender they are still scheduled.
*/ -}}
{{- define "egpu.hostExtenderStanza" -}}
- urlPrefix: {{ include "egpu.extenderUrl" . | quote }}
  filterVerb: filter
  nodeCacheCapable: true
  httpTimeout: {{ .Values.secondScheduler.extenderTimeout }}
  ignorable: true
{{- end }}

{{- define "egpu.extenderStanza" -}}
- urlPrefix: {{ include "egpu.extenderUrl" . | quote }}
  filterVerb: filter
  prioritizeVerb: prioritize
  # Victims that free one card (or the cards asked) for a pod of higher priority, not the node's totals.
  preemptVerb: preempt
  bindVerb: bind
  weight: {{ .Values.secondScheduler.extenderWeight }}
  enableHTTPS: false
  # kube-scheduler sends node names only: the extender has its own node cache.
  nodeCacheCapable: true
  httpTimeout: {{ .Values.secondScheduler.extenderTimeout }}
  ignorable: false
  # Only pods asking one of these go to the extender, and the extender binds them.
  managedResources:
  - name: elasticgpu.io/gpu
    ignoredByScheduler: false
  - name: elasticgpu.io/gpu-memory
    ignoredByScheduler: false
  - name: elasticgpu.io/gpu-core
    ignoredByScheduler: false
  # A per-pod qualifier ("on each of N cards"), not a quantity to take from the node: kube-scheduler must not
  # count it (as in e2e/src/test/resources/scheduler/extender.yaml, which the e2e tests run).
  - name: elasticgpu.io/gpu-count
    ignoredByScheduler: true
  # Compute in TFLOPS, a qualifier of gpu-memory like gpu-count: no node advertises it.
  - name: elasticgpu.io/gpu-tflops
    ignoredByScheduler: true
  - name: nvidia.com/gpu
    ignoredByScheduler: false
  - name: aliyun.com/gpu-mem
    ignoredByScheduler: false
  - name: volcano.sh/gpu-memory
    ignoredByScheduler: false
  - name: volcano.sh/gpu-number
    ignoredByScheduler: false
  # HAMi's qualifiers of nvidia.com/gpu (the share of each card it takes): no node advertises them, so
  # kube-scheduler must not count them; kubelet admits pods that ask names their node does not have.
  - name: nvidia.com/gpumem
    ignoredByScheduler: true
  - name: nvidia.com/gpumem-percentage
    ignoredByScheduler: true
  - name: nvidia.com/gpucores
    ignoredByScheduler: true
{{- end -}}
