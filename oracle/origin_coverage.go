//go:build oraclecoverage

package main

import (
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A coverage build (podcycle's tests/tools/fidelity/coverage.rs) compiles
// k8s.io/apimachinery's field package with an overlay that records where each field error is
// built (field.OracleTakeOrigins). Each cause of a rejection is traced back to the call that
// built it, so that podcycle's answer can be compared call by call.

func forgetOrigins() { field.OracleTakeOrigins() }

// originsOf returns, for each cause, the `file:line` of the call that built it (empty when
// none matches): the first recorded error of the same type, field and message.
func originsOf(causes []metav1.StatusCause) []string {
	created := field.OracleTakeOrigins()
	origins := make([]string, len(causes))
	for i, cause := range causes {
		for _, origin := range created {
			e := origin.Err
			if string(e.Type) == string(cause.Type) && e.Field == cause.Field && e.ErrorBody() == cause.Message {
				origins[i] = sourcePath(origin.File) + ":" + strconv.Itoa(origin.Line)
				break
			}
		}
	}
	return origins
}

// sourcePath is a path inside its module: `pkg/apis/core/validation/validation.go` for
// k8s.io/kubernetes, `module@version/path` for the others.
func sourcePath(file string) string {
	if i := strings.Index(file, "k8s.io/kubernetes@"); i >= 0 {
		rest := file[i:]
		if j := strings.Index(rest, "@"); j >= 0 {
			if k := strings.Index(rest[j:], "/"); k >= 0 {
				return rest[j+k+1:]
			}
		}
	}
	if i := strings.Index(file, "/pkg/mod/"); i >= 0 {
		return file[i+len("/pkg/mod/"):]
	}
	return file
}
