package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// FieldErrorCall is one call in Kubernetes' validation source that builds a field error.
type FieldErrorCall struct {
	// File is the path inside k8s.io/kubernetes (`pkg/apis/core/validation/validation.go`).
	File string `json:"file"`
	Line int    `json:"line"`
	// Function is the function the call is in (`core.validateProbe`, `apps.StatefulSet.x`).
	Function string `json:"function"`
	// Constructor is the field error built (`Invalid`, `Required`, …).
	Constructor string `json:"constructor"`
	// Reachable tells whether the function is reachable, by name, from the Validate of a kind
	// the oracle judges.
	Reachable bool `json:"reachable"`
}

// validationGroups are the packages whose field-error calls are listed, by the last element
// but one of their import path.
var validationGroups = []string{"core", "apps", "batch", "policy", "autoscaling"}

const validationPrefix = "k8s.io/kubernetes/pkg/apis/"

// validationRoots are what the registry strategies' Validate methods call
// (pkg/registry/*/*/strategy.go) for the eleven kinds the oracle judges.
var validationRoots = []string{
	"core.ValidatePodCreate", "core.ValidatePodTemplate", "core.ValidateReplicationController",
	"apps.ValidateDeployment", "apps.ValidateReplicaSet", "apps.ValidateStatefulSet", "apps.ValidateDaemonSet",
	"batch.ValidateJobCreate", "batch.ValidateCronJobCreate",
	"policy.ValidatePodDisruptionBudget", "autoscaling.ValidateHorizontalPodAutoscaler",
}

// fieldErrorConstructors are the k8s.io/apimachinery/pkg/util/validation/field functions that
// build a field error of a rejection.
var fieldErrorConstructors = map[string]bool{
	"Invalid": true, "Required": true, "NotSupported": true, "Forbidden": true,
	"Duplicate": true, "TooLong": true, "TooMany": true, "NotFound": true,
}

const fieldPackage = "k8s.io/apimachinery/pkg/util/validation/field"

// ListFieldErrorCalls parses the validation packages in dirs (their source directories, each
// ending in `pkg/apis/<group>/validation`) and returns every field-error call, marking those in
// functions reachable from validationRoots. Reachability is by name: a function is reached
// when a reachable function mentions it (called or passed as a value); a method is reached
// when any reachable function mentions its name. It over-approximates, never under.
func ListFieldErrorCalls(dirs []string) ([]FieldErrorCall, error) {
	type function struct {
		group, name string
		refs        map[string]bool // qualified names mentioned: "group.Name" or ".Method"
	}
	functions := map[string]*function{}
	var calls []FieldErrorCall
	fset := token.NewFileSet()
	for _, dir := range dirs {
		group := filepath.Base(filepath.Dir(dir))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, entry := range entries {
			name := entry.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			imports := map[string]string{} // local name -> group ("" for field)
			for _, spec := range file.Imports {
				path, _ := strconv.Unquote(spec.Path.Value)
				local := filepath.Base(path)
				if spec.Name != nil {
					local = spec.Name.Name
				}
				switch {
				case path == fieldPackage:
					imports[local] = "field"
				case strings.HasPrefix(path, validationPrefix) && strings.HasSuffix(path, "/validation"):
					imports[local] = filepath.Base(filepath.Dir(path))
				}
			}
			relative := "pkg/apis/" + group + "/validation/" + name
			for _, decl := range file.Decls {
				qualified := group + ".(package level)"
				if fn, ok := decl.(*ast.FuncDecl); ok {
					qualified = group + "." + fn.Name.Name
					if fn.Recv != nil {
						qualified = group + "." + receiverName(fn.Recv) + "." + fn.Name.Name
					}
				}
				current := functions[qualified]
				if current == nil {
					current = &function{group: group, name: qualified, refs: map[string]bool{}}
					functions[qualified] = current
				}
				ast.Inspect(decl, func(node ast.Node) bool {
					switch n := node.(type) {
					case *ast.Ident:
						current.refs[group+"."+n.Name] = true
					case *ast.SelectorExpr:
						if x, ok := n.X.(*ast.Ident); ok {
							if target, ok := imports[x.Name]; ok && target != "field" {
								current.refs[target+"."+n.Sel.Name] = true
							}
						}
						current.refs["."+n.Sel.Name] = true
					case *ast.CallExpr:
						fun := n.Fun
						if index, ok := fun.(*ast.IndexExpr); ok {
							fun = index.X
						}
						if selector, ok := fun.(*ast.SelectorExpr); ok {
							if x, ok := selector.X.(*ast.Ident); ok && imports[x.Name] == "field" && fieldErrorConstructors[selector.Sel.Name] {
								calls = append(calls, FieldErrorCall{
									File:        relative,
									Line:        fset.Position(n.Pos()).Line,
									Function:    qualified,
									Constructor: selector.Sel.Name,
								})
							}
						}
					}
					return true
				})
			}
		}
	}
	// Methods by their bare name, for references through a value (`opts.x`, `v.validate`).
	methods := map[string][]string{}
	for name := range functions {
		if parts := strings.Split(name, "."); len(parts) == 3 {
			methods["."+parts[2]] = append(methods["."+parts[2]], name)
		}
	}
	reached := map[string]bool{}
	queue := append([]string(nil), validationRoots...)
	// Package-level declarations (variables holding functions, tables) are reached with
	// their package.
	for _, group := range validationGroups {
		queue = append(queue, group+".(package level)")
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		fn := functions[name]
		if fn == nil || reached[name] {
			continue
		}
		reached[name] = true
		for ref := range fn.refs {
			if strings.HasPrefix(ref, ".") {
				queue = append(queue, methods[ref]...)
				continue
			}
			queue = append(queue, ref)
		}
	}
	for i := range calls {
		calls[i].Reachable = reached[calls[i].Function]
	}
	sort.Slice(calls, func(i, j int) bool {
		if calls[i].File != calls[j].File {
			return calls[i].File < calls[j].File
		}
		return calls[i].Line < calls[j].Line
	})
	return calls, nil
}

func receiverName(recv *ast.FieldList) string {
	if len(recv.List) == 0 {
		return ""
	}
	expr := recv.List[0].Type
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	if index, ok := expr.(*ast.IndexExpr); ok {
		expr = index.X
	}
	if ident, ok := expr.(*ast.Ident); ok {
		return ident.Name
	}
	return ""
}

// printFieldErrorCalls prints every call as a JSON line.
func printFieldErrorCalls(dirs []string, stdout, stderr io.Writer) int {
	calls, err := ListFieldErrorCalls(dirs)
	if err != nil {
		fmt.Fprintf(stderr, "oracle: %v\n", err)
		return exitUsage
	}
	encoder := json.NewEncoder(stdout)
	for _, call := range calls {
		if err := encoder.Encode(call); err != nil {
			fmt.Fprintf(stderr, "oracle: %v\n", err)
			return exitUsage
		}
	}
	return exitClean
}
