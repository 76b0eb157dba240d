{{- define "changed.name" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end }}
