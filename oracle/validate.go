package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/capabilities"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"

	// The API groups whose objects are decoded, defaulted and converted, as in kube-apiserver.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
)

// workload is a kind the oracle validates: its REST resource and its registry strategy.
type workload struct {
	resource string
	strategy rest.RESTCreateStrategy
}

var workloads = map[schema.GroupKind]workload{
	{Group: "", Kind: "Pod"}:                   {"pods", pod.Strategy},
	{Group: "", Kind: "PodTemplate"}:           {"podtemplates", podtemplate.Strategy},
	{Group: "", Kind: "ReplicationController"}: {"replicationcontrollers", replicationcontroller.Strategy},
	{Group: "apps", Kind: "Deployment"}:        {"deployments", deployment.Strategy},
	{Group: "apps", Kind: "ReplicaSet"}:        {"replicasets", replicaset.Strategy},
	{Group: "apps", Kind: "StatefulSet"}:       {"statefulsets", statefulset.Strategy},
	{Group: "apps", Kind: "DaemonSet"}:         {"daemonsets", daemonset.Strategy},
	{Group: "batch", Kind: "Job"}:              {"jobs", job.Strategy},
	{Group: "batch", Kind: "CronJob"}:          {"cronjobs", cronjob.Strategy},
	// What bounds the workloads' drains and sets their replicas.
	{Group: "policy", Kind: "PodDisruptionBudget"}:          {"poddisruptionbudgets", poddisruptionbudget.Strategy},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}: {"horizontalpodautoscalers", horizontalpodautoscaler.Strategy},
}

// builtinGroups are the API groups whose served versions and kinds the oracle knows: an
// apiVersion/kind pair in one of them that the target version does not serve is rejected, as
// kubectl's REST mapper rejects it. Objects of other groups (CRDs and the rest of the API) are
// not judged.
var builtinGroups = map[string]bool{
	"": true, "apps": true, "batch": true, "extensions": true, "policy": true, "autoscaling": true,
}

// typeMeta is what kubectl reads first from every document.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name         string `json:"name"`
		GenerateName string `json:"generateName"`
		Namespace    string `json:"namespace"`
	} `json:"metadata"`
}

// Judge decodes one document's JSON as the API server does and validates it for creation.
// Problems carry kind, name, stage, field, type and detail; the caller sets file and document.
func Judge(data []byte, target Version) []Problem {
	var header typeMeta
	// kubectl decodes every document as unstructured first (UnstructuredJSONScheme).
	if err := json.Unmarshal(data, &header); err != nil {
		var object map[string]any
		if json.Unmarshal(data, &object) != nil {
			return []Problem{{Stage: StageDecode, Type: "NotAnObject", Detail: fmt.Sprintf("Object 'Kind' is missing in '%s'", data)}}
		}
		// apiVersion, kind or metadata of the wrong type.
		return []Problem{{Stage: StageDecode, Type: "TypeError", Detail: err.Error()}}
	}
	problem := Problem{Kind: header.Kind, Name: header.Metadata.Name, Stage: StageDecode}
	switch {
	case header.Kind == "":
		problem.Field, problem.Type = "kind", "FieldValueRequired"
		problem.Detail = fmt.Sprintf("Object 'Kind' is missing in '%s'", data)
		return []Problem{problem}
	case header.APIVersion == "":
		problem.Field, problem.Type = "apiVersion", "FieldValueRequired"
		problem.Detail = fmt.Sprintf("Object 'apiVersion' is missing in '%s'", data)
		return []Problem{problem}
	}
	gv, err := schema.ParseGroupVersion(header.APIVersion)
	if err != nil {
		problem.Field, problem.Type, problem.Detail = "apiVersion", "FieldValueInvalid", err.Error()
		return []Problem{problem}
	}
	gvk := gv.WithKind(header.Kind)
	if strings.HasSuffix(gvk.Kind, "List") {
		return judgeList(data, target)
	}
	if !builtinGroups[gvk.Group] {
		return nil
	}
	if !Served(gvk, target) {
		// The pair is wrong; the apiVersion is what is usually fixed.
		problem.Field, problem.Type = "apiVersion", "NoKindMatch"
		problem.Detail = fmt.Sprintf("resource mapping not found for name: %q: no matches for kind %q in version %q\nensure CRDs are installed first",
			header.Metadata.Name, gvk.Kind, gv.String())
		return []Problem{problem}
	}
	kindInfo, ok := workloads[gvk.GroupKind()]
	if !ok {
		return nil
	}
	object, problems := decodeToInternal(data, gvk)
	if len(problems) > 0 {
		for i := range problems {
			problems[i].Kind, problems[i].Name = header.Kind, header.Metadata.Name
		}
		return problems
	}
	namespace := header.Metadata.Namespace
	if namespace == "" {
		// kubectl sends an object without a namespace to the context's namespace.
		namespace = metav1.NamespaceDefault
	}
	forgetOrigins()
	errs := create(object, gvk, kindInfo, namespace)
	origins := originsOf(errs)
	for i, cause := range errs {
		problems = append(problems, Problem{
			Origin: origins[i],
			Kind:   header.Kind,
			Name:   header.Metadata.Name,
			Stage:  StageValidate,
			Field:  cause.Field,
			Type:   string(cause.Type),
			Detail: cause.Message,
		})
	}
	return problems
}

// judgeList judges the items of a list (`kind: List`) one by one, as kubectl flattens a list
// into its objects (k8s.io/cli-runtime FlattenListVisitor). Fields are paths in the item.
func judgeList(data []byte, target Version) []Problem {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(data, &list) != nil {
		return nil
	}
	var problems []Problem
	for _, item := range list.Items {
		problems = append(problems, Judge(item, target)...)
	}
	return problems
}

// AllowPrivileged lets pods ask for privileged containers, as kube-apiserver does with
// `--allow-privileged=true`, which kubeadm, kind and the managed clusters set: the flag's own
// default (false) is a cluster policy, not an API rule.
func AllowPrivileged() {
	capabilities.Initialize(capabilities.Capabilities{AllowPrivileged: true})
}

// Served tells whether a cluster of the target version serves the kind at that apiVersion, in
// the groups the oracle knows (see builtinGroups). From 1.26 on these are v1, apps/v1, batch/v1,
// policy/v1 and autoscaling/v1 and v2; batch/v1beta1 CronJob and policy/v1beta1
// PodDisruptionBudget were served until 1.24, autoscaling/v2beta2 until 1.25 (kubernetes/website
// deprecation-guide.md). extensions/v1beta1, apps/v1beta1 and apps/v1beta2 stopped serving
// workloads in 1.16, before the oldest version modelled.
func Served(gvk schema.GroupVersionKind, target Version) bool {
	switch gvk.GroupVersion().String() {
	case "v1", "apps/v1", "batch/v1", "policy/v1", "autoscaling/v1", "autoscaling/v2":
		return legacyscheme.Scheme.Recognizes(gvk)
	case "batch/v1beta1":
		return gvk.Kind == "CronJob" && target.Minor < 25
	case "policy/v1beta1":
		// Served until 1.25 (kubernetes/website deprecation-guide.md, "v1.25").
		return gvk.Kind == "PodDisruptionBudget" && target.Minor < 25
	case "autoscaling/v2beta2":
		// Served until 1.26 (deprecation-guide.md, "v1.26").
		return gvk.Kind == "HorizontalPodAutoscaler" && target.Minor < 26
	case "autoscaling/v2beta1":
		return gvk.Kind == "HorizontalPodAutoscaler" && target.Minor < 25
	default:
		return false
	}
}

// decodeToInternal decodes the JSON kubectl sends as kube-apiserver's create handler does:
// strictly (kubectl's default `--validate=strict` asks for strict field validation), defaulted
// and converted to the internal version.
func decodeToInternal(data []byte, gvk schema.GroupVersionKind) (runtime.Object, []Problem) {
	info, ok := runtime.SerializerInfoForMediaType(legacyscheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		panic("no JSON serializer")
	}
	hub := schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal}
	decoder := legacyscheme.Codecs.DecoderToVersion(info.StrictSerializer, hub)
	object, _, err := decoder.Decode(data, &gvk, nil)
	if err == nil {
		return object, nil
	}
	if strict, ok := runtime.AsStrictDecodingError(err); ok {
		var problems []Problem
		for _, e := range strict.Errors() {
			problem := Problem{Stage: StageDecode, Type: "StrictDecoding", Detail: e.Error()}
			if withPath, ok := e.(interface{ FieldPath() string }); ok {
				problem.Field = withPath.FieldPath()
			}
			switch {
			case strings.HasPrefix(e.Error(), "unknown field"):
				problem.Type = "UnknownField"
			case strings.HasPrefix(e.Error(), "duplicate field"):
				problem.Type = "DuplicateField"
			}
			problems = append(problems, problem)
		}
		return nil, problems
	}
	return nil, []Problem{{Stage: StageDecode, Type: "TypeError", Field: typeErrorField(data, err), Detail: err.Error()}}
}

var typeErrorPattern = regexp.MustCompile(`cannot unmarshal (\w+)(?: [^ ]+)? into Go struct field [^ .]+\.(\S+) of type`)

// typeErrorField finds the field of a JSON type error. encoding/json names it without list
// indexes (`spec.containers.image`); the first value at that path whose JSON type is the one
// the error names is the one the decoder stopped at.
func typeErrorField(data []byte, err error) string {
	match := typeErrorPattern.FindStringSubmatch(err.Error())
	if match == nil {
		return ""
	}
	var document any
	if json.Unmarshal(data, &document) != nil {
		return ""
	}
	// Embedded Go structs (`ProbeHandler`, `LifecycleHandler`) appear in the path by their Go
	// name; JSON field names start in lower case.
	var keys []string
	for _, key := range strings.Split(match[2], ".") {
		if key != "" && !unicode.IsUpper(rune(key[0])) {
			keys = append(keys, key)
		}
	}
	path, ok := findTyped(document, keys, match[1], "")
	if !ok {
		return strings.Join(keys, ".")
	}
	return path
}

func findTyped(value any, keys []string, jsonType, path string) (string, bool) {
	if list, ok := value.([]any); ok {
		for i, item := range list {
			if found, ok := findTyped(item, keys, jsonType, fmt.Sprintf("%s[%d]", path, i)); ok {
				return found, true
			}
		}
		return "", false
	}
	if len(keys) == 0 {
		return path, jsonTypeOf(value) == jsonType
	}
	object, ok := value.(map[string]any)
	if !ok {
		return "", false
	}
	child, ok := object[keys[0]]
	if !ok {
		return "", false
	}
	next := keys[0]
	if path != "" {
		next = path + "." + keys[0]
	}
	return findTyped(child, keys[1:], jsonType, next)
}

func jsonTypeOf(value any) string {
	switch value.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// create runs what kube-apiserver's generic registry store does before it writes a new
// object: system metadata and a generated name (registry/store.go `create`), then
// rest.BeforeCreate (namespace, PrepareForCreate, Validate, object meta, declarative
// validation). It returns the causes of the rejection, if any.
func create(object runtime.Object, gvk schema.GroupVersionKind, target workload, namespace string) []metav1.StatusCause {
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              "create",
		APIPrefix:         "api",
		APIGroup:          gvk.Group,
		APIVersion:        gvk.Version,
		Namespace:         namespace,
		Resource:          target.resource,
	})
	accessor, err := meta.Accessor(object)
	if err != nil {
		return []metav1.StatusCause{{Type: metav1.CauseTypeInternal, Message: err.Error()}}
	}
	rest.FillObjectMetaSystemFields(accessor)
	if accessor.GetGenerateName() != "" && accessor.GetName() == "" {
		accessor.SetName(target.strategy.GenerateName(accessor.GetGenerateName()))
	}
	err = rest.BeforeCreate(target.strategy, ctx, object)
	if err == nil {
		return nil
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		details := status.Status().Details
		if details != nil && len(details.Causes) > 0 {
			return details.Causes
		}
		return []metav1.StatusCause{{Type: metav1.CauseType(status.Status().Reason), Message: status.Status().Message}}
	}
	return []metav1.StatusCause{{Type: metav1.CauseTypeInternal, Message: err.Error()}}
}
