// Command oracle judges Kubernetes workload manifests with Kubernetes' own code: it decodes
// them as `kubectl apply -f` and as `kustomize build` do, defaults and converts them as the API
// server does, and runs the API server's create validation for the workload kinds.
//
// Usage:
//
//	oracle [--kube-version X.Y] [--resolve] FILE...
//	oracle --restart-delays N
//	oracle --field-error-calls DIR...
//
// It prints one JSON object per line for every problem found:
//
//	{"file","document","kind","name","stage","field","type","detail"}
//
// and exits 0 when nothing is rejected, 1 when something is, 2 on a usage error or an
// unreadable file. With --resolve it prints instead, for every Deployment, StatefulSet and
// DaemonSet the API server accepts, the rollout counts the controllers resolve, and exits 0.
// With --restart-delays N it prints the kubelet's waits before the first N restarts of a
// container that keeps failing, one `{"restart","seconds"}` per line, and exits 0.
// With --field-error-calls it lists the calls that build field errors in the validation
// packages whose source directories are given, one JSON object per line.
// See README.md for the meaning of each field.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

// Problem is one rejection, in the oracle's output contract.
type Problem struct {
	File     string `json:"file"`
	Document int    `json:"document"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Stage    string `json:"stage"`
	Field    string `json:"field"`
	Type     string `json:"type"`
	Detail   string `json:"detail"`
	// Origin is where Kubernetes built the error (`pkg/apis/core/validation/validation.go:123`),
	// in a coverage build only.
	Origin string `json:"origin,omitempty"`
}

// The stages a problem is found in.
const (
	// StageDecode is `kubectl apply -f`'s reading of the file and the API server's decoding of
	// the object it sends: YAML, apiVersion/kind mapping, strict field validation, types.
	StageDecode = "decode"
	// StageKustomizeDecode is `kustomize build`'s (and `kubectl apply -k`'s) reading.
	StageKustomizeDecode = "kustomize-decode"
	// StageValidate is the API server's create validation, after defaulting.
	StageValidate = "validate"
)

const (
	exitClean    = 0
	exitRejected = 1
	exitUsage    = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("oracle", flag.ContinueOnError)
	flags.SetOutput(stderr)
	kubeVersion := flags.String("kube-version", DefaultVersion, "the Kubernetes version to judge for (1.MINOR)")
	resolve := flags.Bool("resolve", false, "print the rollout counts the controllers resolve instead of the problems")
	fieldErrorCalls := flags.Bool("field-error-calls", false, "list the field-error calls of the validation packages in the directories given")
	restartDelays := flags.Int("restart-delays", 0, "print the kubelet's waits before this many restarts of a failing container")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "usage: oracle [--kube-version X.Y] [--resolve] FILE...\n       oracle --restart-delays N\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return exitUsage
	}
	if *restartDelays > 0 && *restartDelays <= 1000 {
		encoder := json.NewEncoder(stdout)
		for _, delay := range RestartDelays(*restartDelays) {
			if err := encoder.Encode(delay); err != nil {
				fmt.Fprintf(stderr, "oracle: %v\n", err)
				return exitUsage
			}
		}
		return exitClean
	}
	if *fieldErrorCalls {
		return printFieldErrorCalls(flags.Args(), stdout, stderr)
	}
	if flags.NArg() == 0 {
		flags.Usage()
		return exitUsage
	}
	target, err := ParseVersion(*kubeVersion)
	if err != nil {
		fmt.Fprintf(stderr, "oracle: %v\n", err)
		return exitUsage
	}
	AllowPrivileged()
	if err := SetFeatureGates(target); err != nil {
		fmt.Fprintf(stderr, "oracle: %v\n", err)
		return exitUsage
	}
	encoder := json.NewEncoder(stdout)
	encoder.SetEscapeHTML(false)
	rejected := false
	for _, path := range flags.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "oracle: %v\n", err)
			return exitUsage
		}
		if *resolve {
			for _, resolution := range ResolveFile(path, data, target) {
				if err := encoder.Encode(resolution); err != nil {
					fmt.Fprintf(stderr, "oracle: %v\n", err)
					return exitUsage
				}
			}
			continue
		}
		for _, problem := range JudgeFile(path, data, target) {
			rejected = true
			if err := encoder.Encode(problem); err != nil {
				fmt.Fprintf(stderr, "oracle: %v\n", err)
				return exitUsage
			}
		}
	}
	if rejected {
		return exitRejected
	}
	return exitClean
}

// JudgeFile returns every problem of one file: what kubectl's reading and the API server find,
// then what kustomize's reading finds.
func JudgeFile(path string, data []byte, target Version) []Problem {
	var problems []Problem
	for _, document := range KubectlDocuments(data) {
		problems = append(problems, judgeDocument(path, document, target)...)
	}
	for _, problem := range KustomizeProblems(data) {
		problem.File = path
		problems = append(problems, problem)
	}
	return problems
}

func judgeDocument(path string, document Document, target Version) []Problem {
	if document.Err != nil {
		return []Problem{{
			File:     path,
			Document: document.Index,
			Stage:    StageDecode,
			Type:     "YAMLSyntax",
			Detail:   document.Err.Error(),
		}}
	}
	problems := Judge(document.JSON, target)
	for i := range problems {
		problems[i].File = path
		problems[i].Document = document.Index
	}
	return problems
}
