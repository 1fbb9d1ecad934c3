{{/*
The name of every object of a release (Helm's fullname convention): the release name when it
already contains the chart name, else "<release>-<chart>". With the default release name
kubeloop-application the objects are named exactly as in deploy/*.yaml; cluster-scoped ones
(ClusterRole, ClusterRoleBinding) therefore never collide between two releases.
*/}}
{{- define "kubeloop-application.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels every object of the chart carries. */}}
{{- define "kubeloop-application.labels" -}}
{{ include "kubeloop-application.selectorLabels" . }}
app.kubernetes.io/part-of: kubeloop
{{- end -}}

{{/*
The labels that tell one release's controller pods from another's (the Deployment's selector):
two releases in one namespace must not select each other's pods.
*/}}
{{- define "kubeloop-application.selectorLabels" -}}
app.kubernetes.io/name: kubeloop-application
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
