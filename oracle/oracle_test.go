package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/klog/v2"
)

// at parses a version and sets the feature gates to its defaults.
func at(t *testing.T, version string) Version {
	t.Helper()
	target, err := ParseVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	if err := SetFeatureGates(target); err != nil {
		t.Fatal(err)
	}
	return target
}

// judge runs the oracle on one file's text for one version.
func judge(t *testing.T, version, text string) []Problem {
	t.Helper()
	return JudgeFile("test.yaml", []byte(text), at(t, version))
}

// verdicts are the problems as `stage document field type` lines, for short assertions.
func verdicts(problems []Problem) []string {
	lines := []string{}
	for _, p := range problems {
		lines = append(lines, strings.Join([]string{p.Stage, itoa(p.Document), p.Field, p.Type}, " "))
	}
	return lines
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func expect(t *testing.T, problems []Problem, want ...string) {
	t.Helper()
	got := verdicts(problems)
	if want == nil {
		want = []string{}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("verdicts differ\n got: %q\nwant: %q\nproblems: %+v", got, want, problems)
	}
}

const podYAML = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx:1.25
`

func TestValidPodIsAccepted(t *testing.T) {
	expect(t, judge(t, "1.37", podYAML))
}

func TestContainerWithoutNameIsRejected(t *testing.T) {
	text := strings.Replace(podYAML, "  - name: web\n    image", "  - image", 1)
	expect(t, judge(t, "1.37", text), "validate 0 spec.containers[0].name FieldValueRequired")
}

func TestUnservedKindsAreRejected(t *testing.T) {
	podUnderApps := strings.Replace(podYAML, "apiVersion: v1", "apiVersion: apps/v1", 1)
	expect(t, judge(t, "1.37", podUnderApps), "decode 0 apiVersion NoKindMatch")
	deployment := `apiVersion: extensions/v1beta1
kind: Deployment
metadata: {name: web}
spec: {}
`
	expect(t, judge(t, "1.37", deployment), "decode 0 apiVersion NoKindMatch")
	cronJob := `apiVersion: batch/v1beta1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: job, image: busybox}]
`
	expect(t, judge(t, "1.25", cronJob), "decode 0 apiVersion NoKindMatch")
	expect(t, judge(t, "1.24", cronJob))
	// Other groups are not judged.
	expect(t, judge(t, "1.37", "apiVersion: example.com/v1\nkind: Pod\nmetadata: {name: x}\n"))
}

func TestExecSleepIsAcceptedAndTheSleepActionRejected(t *testing.T) {
	exec := podYAML + `    lifecycle:
      preStop:
        exec: {command: [sleep, "45"]}
  terminationGracePeriodSeconds: 20
`
	expect(t, judge(t, "1.37", exec))
	action := podYAML + `    lifecycle:
      preStop:
        sleep: {seconds: 45}
  terminationGracePeriodSeconds: 20
`
	expect(t, judge(t, "1.37", action), "validate 0 spec.containers[0].lifecycle.preStop.sleep FieldValueInvalid")
}

func TestDuplicateKeysAreRejectedOnlyByKustomize(t *testing.T) {
	text := podYAML + `    ports:
    - containerPort: 80
    ports:
    - containerPort: 81
`
	expect(t, judge(t, "1.37", text), "kustomize-decode 0 spec.containers[0].ports DuplicateKey")
}

func TestQuotedScalarContinuedAtTheKeysIndentIsRead(t *testing.T) {
	text := `apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    note: "first line
    continued at the key's indent"
spec:
  containers:
  - name: web
    image: nginx:1.25
`
	expect(t, judge(t, "1.37", text))
	plain := strings.Replace(text, `"first line`, `first line`, 1)
	plain = strings.Replace(plain, `indent"`, `indent`, 1)
	if len(judge(t, "1.37", plain)) == 0 {
		t.Error("a plain scalar continued at the key's indent must be rejected")
	}
}

func TestYAML11BooleansDifferBetweenKubectlAndKustomize(t *testing.T) {
	text := podYAML + `    env:
    - name: DEBUG
      value: yes
`
	// kubectl reads `yes` as true, and the API server refuses a boolean for a string; kustomize
	// keeps the string.
	expect(t, judge(t, "1.37", text), "decode 0 spec.containers[0].env[0].value TypeError")
}

func TestTypeErrorsNameTheFieldWithIndexes(t *testing.T) {
	text := podYAML + `    readinessProbe:
      exec: {command: [true]}
`
	expect(t, judge(t, "1.37", text), "decode 0 spec.containers[0].readinessProbe.exec.command[0] TypeError")
}

func TestUnknownFieldsFailStrictDecoding(t *testing.T) {
	text := podYAML + "    readinesProbe: {}\n"
	expect(t, judge(t, "1.37", text), "decode 0 spec.containers[0].readinesProbe UnknownField")
}

func TestFeatureGatesFollowTheVersion(t *testing.T) {
	// Container restart rules are alpha (off, dropped on create) in 1.34 and beta in 1.35,
	// where the rule without an explicit container restartPolicy is refused.
	text := podYAML + `    restartPolicyRules:
    - action: Restart
      exitCodes: {operator: In, values: [42]}
`
	expect(t, judge(t, "1.34", text))
	if len(judge(t, "1.35", text)) == 0 {
		t.Error("1.35 validates restartPolicyRules")
	}
}

func TestDocumentIndexesFollowTheYAMLStream(t *testing.T) {
	broken := strings.Replace(podYAML, "  - name: web\n    image", "  - image", 1)
	cases := map[string]int{
		podYAML + "---\n" + broken:                               1,
		"---\n" + broken:                                         0,
		"# header\n---\n" + broken:                               0,
		podYAML + "---\n---\n" + broken:                          2,
		podYAML + "--- # next\n# only a comment\n---\n" + broken: 2,
	}
	for text, want := range cases {
		problems := judge(t, "1.37", text)
		if len(problems) != 1 || problems[0].Document != want {
			t.Errorf("document %d expected for\n%s\ngot %+v", want, text, problems)
		}
	}
}

func TestChunksMatchYAMLReader(t *testing.T) {
	inputs := []string{
		podYAML,
		"---\n" + podYAML + "---\n" + podYAML,
		"# c\n---\na: 1\n---\n---\nb: 2\n--- # x\nc: 3",
		"a: 1\r\nb: 2\r\n---\r\nc: 3\r\n",
		"a: |\n  ---\n  text\n",
		"",
		"\n\n",
	}
	for _, input := range inputs {
		var want [][]byte
		reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(input)))
		for {
			chunk, err := reader.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, chunk)
		}
		var got [][]byte
		for _, chunk := range yamlChunks([]byte(input)) {
			got = append(got, chunk.text)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d chunks, YAMLReader gives %d", input, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%q chunk %d: %q, YAMLReader gives %q", input, i, got[i], want[i])
			}
		}
	}
}

func TestInvalidSeparatorStopsTheFile(t *testing.T) {
	problems := judge(t, "1.37", podYAML+"--- not a separator\n"+podYAML)
	got := verdicts(problems)
	want := []string{"decode 1  YAMLSyntax", "kustomize-decode 1  DocumentSeparator"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestVersions(t *testing.T) {
	for _, good := range []string{"1.23", "v1.34", "1.37.2"} {
		if _, err := ParseVersion(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []string{"1.22", "1.38", "2.0", "1", "1.x", ""} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("%s must be refused", bad)
		}
	}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte(podYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(podYAML, "name: web\n    image", "image", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{good}, &stdout, &stderr); code != exitClean || stdout.Len() != 0 {
		t.Errorf("clean file: exit %d, %q", code, stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"--kube-version", "1.35", good, bad}, &stdout, &stderr); code != exitRejected {
		t.Errorf("rejected file: exit %d", code)
	}
	var problem map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &problem); err != nil {
		t.Fatalf("%v: %q", err, stdout.String())
	}
	keys := []string{}
	for key := range problem {
		keys = append(keys, key)
	}
	for _, key := range []string{"file", "document", "kind", "name", "stage", "field", "type", "detail"} {
		if _, ok := problem[key]; !ok {
			t.Errorf("no %q in %v", key, keys)
		}
	}
	if len(problem) != 8 {
		t.Errorf("fields: %v", keys)
	}
	for _, args := range [][]string{{}, {"--kube-version", "1.99", good}, {filepath.Join(dir, "missing.yaml")}, {"--bogus", good}} {
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestMain(m *testing.M) {
	// Moving the emulated version between tests logs every gate that changes.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	AllowPrivileged()
	os.Exit(m.Run())
}

func TestAliasBombsAreRefusedWithoutExhaustingMemory(t *testing.T) {
	text := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: laughs\n  labels:\n    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
	previous := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		text += "    " + name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat("*"+previous+", ", 10), ", ") + "]\n"
		previous = name
	}
	expect(t, judge(t, "1.37", text), "decode 0  YAMLSyntax", "kustomize-decode 0  ExcessiveAliasing")
}

func TestListItemsAreJudgedOneByOne(t *testing.T) {
	text := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a}
  spec:
    containers: [{image: busybox}]
`
	expect(t, judge(t, "1.37", text), "validate 0 spec.containers[0].name FieldValueRequired")
}

func TestEveryDuplicateKeyIsReported(t *testing.T) {
	text := podYAML + `    ports: []
    ports: []
  restartPolicy: Always
  restartPolicy: Never
`
	expect(t, judge(t, "1.37", text),
		"kustomize-decode 0 spec.restartPolicy DuplicateKey",
		"kustomize-decode 0 spec.containers[0].ports DuplicateKey")
}

func TestPrivilegedContainersAreAllowed(t *testing.T) {
	expect(t, judge(t, "1.37", podYAML+"    securityContext: {privileged: true}\n"))
}

func TestBudgetsAndAutoscalersAreValidated(t *testing.T) {
	text := `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 2
  maxUnavailable: 150%
  selector: {matchLabels: {app: web}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 5
  maxReplicas: 3
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old}
spec:
  minAvailable: 1
`
	expect(t, judge(t, "1.37", text),
		"validate 0 spec FieldValueInvalid",
		"validate 0 spec.maxUnavailable FieldValueInvalid",
		"validate 1 spec.maxReplicas FieldValueInvalid",
		"decode 2 apiVersion NoKindMatch",
	)
}

// resolve runs the oracle's --resolve on one file's text for one version.
func resolve(t *testing.T, version, text string) []Resolution {
	t.Helper()
	return ResolveFile("test.yaml", []byte(text), at(t, version))
}

func TestRolloutCountsAreTheControllers(t *testing.T) {
	text := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1%}}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 5
  serviceName: db
  updateStrategy: {rollingUpdate: {maxUnavailable: 50%}}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: db}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  updateStrategy: {rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}}
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: agent}]}
`
	got := resolve(t, "1.37", text)
	if len(got) != 3 {
		t.Fatalf("want 3 resolutions, got %+v", got)
	}
	// 0 surge and 1% of 3 rounded down: both 0, so ResolveFenceposts makes it 1 unavailable.
	if *got[0].MaxSurge != 0 || *got[0].MaxUnavailable != 1 {
		t.Errorf("deployment: %+v", got[0])
	}
	// 50% of 5 rounded down.
	if *got[1].MaxUnavailable != 2 {
		t.Errorf("statefulset: %+v", got[1])
	}
	// 25% of 10 nodes rounded up.
	if got[2].ByNodes[2] != (NodeResolution{Nodes: 10, MaxSurge: 3, MaxUnavailable: 0}) {
		t.Errorf("daemonset: %+v", got[2])
	}
	// Before 1.37 the API server drops a StatefulSet's maxUnavailable: one at a time.
	if old := resolve(t, "1.36", text); *old[1].MaxUnavailable != 1 {
		t.Errorf("statefulset at 1.36: %+v", old[1])
	}
}

// The static listing finds every field-error call, under any import name, and marks those in
// functions the kinds' Validate reaches, through calls, function values and methods.
func TestListFieldErrorCalls(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pkg", "apis", "batch", "validation")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	source := `package validation

import fld "k8s.io/apimachinery/pkg/util/validation/field"

type checker struct{}

func ValidateJobCreate() fld.ErrorList { return helper(validateName) }

func helper(f func() *fld.Error) fld.ErrorList {
	var c checker
	return fld.ErrorList{f(), c.check()}
}

func validateName() *fld.Error { return fld.Invalid(nil, "", "bad") }

func (checker) check() *fld.Error { return fld.NotSupported[string](nil, "", nil) }

func ValidateJobStatus() *fld.Error { return fld.Required(nil, "") }
`
	if err := os.WriteFile(filepath.Join(dir, "validation.go"), []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, err := ListFieldErrorCalls([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, call := range calls {
		got = append(got, strings.Join([]string{call.File, itoa(call.Line), call.Function, call.Constructor, itoa2(call.Reachable)}, " "))
	}
	want := []string{
		"pkg/apis/batch/validation/validation.go 14 batch.validateName Invalid true",
		"pkg/apis/batch/validation/validation.go 16 batch.checker.check NotSupported true",
		"pkg/apis/batch/validation/validation.go 18 batch.ValidateJobStatus Required false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls differ\n got: %q\nwant: %q", got, want)
	}
}

func itoa2(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
