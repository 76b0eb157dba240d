package main

import (
	"encoding/json"
	"strings"
	_ "unsafe" // go:linkname, for the StatefulSet controller's own resolution

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	daemonutil "k8s.io/kubernetes/pkg/controller/daemon/util"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	// Linked for getStatefulSetMaxUnavailable.
	_ "k8s.io/kubernetes/pkg/controller/statefulset"
)

// getStatefulSetMaxUnavailable is the StatefulSet controller's own reading of
// `updateStrategy.rollingUpdate.maxUnavailable` (stateful_set_utils.go). It is not exported,
// and what the oracle compares with is Kubernetes' code, not a copy of it: linked by name.
//
//go:linkname getStatefulSetMaxUnavailable k8s.io/kubernetes/pkg/controller/statefulset.getStatefulSetMaxUnavailable
func getStatefulSetMaxUnavailable(maxUnavailable *intstr.IntOrString, replicaCount int) (int, error)

// NodeCounts are the cluster sizes a DaemonSet's counts are resolved for: the manifest does not
// say how many nodes run it.
var NodeCounts = []int{1, 3, 10, 100}

// Resolution is how the controllers resolve a workload's rollout counts, in the oracle's
// `--resolve` output contract (README.md).
type Resolution struct {
	File     string `json:"file"`
	Document int    `json:"document"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Replicas int32  `json:"replicas"`
	// A Deployment's maxSurge and maxUnavailable in pods (`MaxSurge`, `MaxUnavailable`, on
	// `ResolveFenceposts`); a StatefulSet's maxUnavailable (`getStatefulSetMaxUnavailable`).
	MaxSurge       *int32 `json:"max_surge,omitempty"`
	MaxUnavailable *int32 `json:"max_unavailable,omitempty"`
	// A DaemonSet's counts for each of NodeCounts (`SurgeCount`, `UnavailableCount`).
	ByNodes []NodeResolution `json:"by_nodes,omitempty"`
}

// NodeResolution is a DaemonSet's counts for a number of nodes.
type NodeResolution struct {
	Nodes          int `json:"nodes"`
	MaxSurge       int `json:"max_surge"`
	MaxUnavailable int `json:"max_unavailable"`
}

// ResolveFile resolves the rollout counts of every Deployment, StatefulSet and DaemonSet of a
// file that the API server accepts, after its defaults and the fields the target version drops.
func ResolveFile(path string, data []byte, target Version) []Resolution {
	var resolutions []Resolution
	for _, document := range KubectlDocuments(data) {
		if document.Err != nil {
			continue
		}
		for _, resolution := range resolveDocument(document.JSON, target) {
			resolution.File = path
			resolution.Document = document.Index
			resolutions = append(resolutions, resolution)
		}
	}
	return resolutions
}

func resolveDocument(data []byte, target Version) []Resolution {
	var header typeMeta
	if json.Unmarshal(data, &header) != nil {
		return nil
	}
	if strings.HasSuffix(header.Kind, "List") {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(data, &list) != nil {
			return nil
		}
		var resolutions []Resolution
		for _, item := range list.Items {
			resolutions = append(resolutions, resolveDocument(item, target)...)
		}
		return resolutions
	}
	gv, err := schema.ParseGroupVersion(header.APIVersion)
	if err != nil || gv.Group != "apps" || !Served(gv.WithKind(header.Kind), target) {
		return nil
	}
	gvk := gv.WithKind(header.Kind)
	kindInfo, ok := workloads[gvk.GroupKind()]
	if !ok {
		return nil
	}
	object, problems := decodeToInternal(data, gvk)
	if len(problems) > 0 {
		return nil
	}
	namespace := header.Metadata.Namespace
	if namespace == "" {
		namespace = "default"
	}
	// Validation first: counts are resolved only for what the API server keeps, as it keeps
	// it (PrepareForCreate drops the fields of disabled gates).
	if errs := create(object, gvk, kindInfo, namespace); len(errs) > 0 {
		return nil
	}
	resolution := Resolution{Kind: header.Kind, Name: header.Metadata.Name}
	switch internal := object.(type) {
	case *apps.Deployment:
		var deployment appsv1.Deployment
		if convert(internal, &deployment) != nil {
			return nil
		}
		surge, unavailable := deploymentutil.MaxSurge(deployment), deploymentutil.MaxUnavailable(deployment)
		resolution.Replicas = *deployment.Spec.Replicas
		resolution.MaxSurge, resolution.MaxUnavailable = &surge, &unavailable
	case *apps.StatefulSet:
		replicas := int(internal.Spec.Replicas)
		resolution.Replicas = internal.Spec.Replicas
		if internal.Spec.UpdateStrategy.Type != apps.RollingUpdateStatefulSetStrategyType {
			return nil
		}
		// updateStatefulSetAfterInvariantEstablished: 1 without a rollingUpdate block.
		unavailable := int32(1)
		if rolling := internal.Spec.UpdateStrategy.RollingUpdate; rolling != nil {
			n, err := getStatefulSetMaxUnavailable(rolling.MaxUnavailable, replicas)
			if err != nil {
				return nil
			}
			unavailable = int32(n)
		}
		resolution.MaxUnavailable = &unavailable
	case *apps.DaemonSet:
		var daemonSet appsv1.DaemonSet
		if convert(internal, &daemonSet) != nil {
			return nil
		}
		if daemonSet.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
			return nil
		}
		for _, nodes := range NodeCounts {
			surge, err := daemonutil.SurgeCount(&daemonSet, nodes)
			if err != nil {
				return nil
			}
			unavailable, err := daemonutil.UnavailableCount(&daemonSet, nodes)
			if err != nil {
				return nil
			}
			resolution.ByNodes = append(resolution.ByNodes, NodeResolution{nodes, surge, unavailable})
		}
	default:
		return nil
	}
	return []Resolution{resolution}
}

// convert converts an internal object to its versioned type, as the API server does when it
// stores it and the controllers read it.
func convert(internal runtime.Object, versioned runtime.Object) error {
	return legacyscheme.Scheme.Convert(internal, versioned, nil)
}
