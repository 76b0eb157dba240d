{{- define "web.labels" -}}
app: {{ .Chart.Name }}
{{- end }}
