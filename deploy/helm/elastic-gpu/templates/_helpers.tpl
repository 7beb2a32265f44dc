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
  args:
  - scheduler
  - --listen
  - 127.0.0.1:{{ .Values.extender.port }}
  - --metrics-listen
  - 0.0.0.0:{{ .Values.extender.metricsPort }}
  - --policy
  - {{ .Values.policy | quote }}
  - --memory-block-mib
  - {{ .Values.memoryBlockMib | quote }}
  - --aliyun-unit-mib
  - {{ .Values.aliyunUnitMib | quote }}
  - --ledger-namespace
  - {{ .Release.Namespace }}
  {{- if .Values.gpuModels }}
  - --model-table
  - /etc/elastic-gpu/models/gpu-models.csv
  {{- end }}
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
  {{- if .Values.gpuModels }}
  - {name: gpu-models, mountPath: /etc/elastic-gpu/models, readOnly: true}
  {{- end }}
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
