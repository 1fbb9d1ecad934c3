{{/* The labels every object of the chart carries. */}}
{{- define "kubeloop-application.labels" -}}
app.kubernetes.io/name: kubeloop-application
app.kubernetes.io/part-of: kubeloop
{{- end -}}
