//go:build !oraclecoverage

package main

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// forgetOrigins and originsOf are the field-error origins of a coverage build (see
// origin_coverage.go); an ordinary build does not record them.
func forgetOrigins() {}

func originsOf(causes []metav1.StatusCause) []string { return make([]string, len(causes)) }
