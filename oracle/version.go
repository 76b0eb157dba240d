package main

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
	utilfeature "k8s.io/apiserver/pkg/util/feature"

	// Registers Kubernetes' feature gates, with their stage in every version, on
	// utilfeature.DefaultMutableFeatureGate.
	_ "k8s.io/kubernetes/pkg/features"
)

// The Kubernetes release whose code the oracle runs; go.mod pins k8s.io/kubernetes to it.
const (
	ReleaseMinor = 37
	// DefaultVersion is the version judged when --kube-version is not given.
	DefaultVersion = "1.37"
	// OldestExactMinor is the oldest version the release can emulate: kube-apiserver accepts
	// --emulated-version down to three minors below its own (k8s.io/apiserver
	// pkg/util/compatibility/version.go, kubeEffectiveVersionFloors).
	OldestExactMinor = ReleaseMinor - 3
	// OldestMinor is the oldest version the oracle accepts at all (podcycle's oldest). Below
	// OldestExactMinor the verdict is approximate: feature gates take the stage their recorded
	// history gives them at that version, but validation code that changed without a gate is
	// this release's.
	OldestMinor = 23
)

// Version is a Kubernetes minor version (1.MINOR).
type Version struct {
	Minor int
}

func (v Version) String() string { return fmt.Sprintf("1.%d", v.Minor) }

// Exact tells whether the oracle's verdict for this version is Kubernetes' own emulation of it.
func (v Version) Exact() bool { return v.Minor >= OldestExactMinor }

// ParseVersion reads `1.33`, `v1.33` or `1.33.2`.
func ParseVersion(text string) (Version, error) {
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(text), "v"), ".")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "1" {
		return Version{}, fmt.Errorf("invalid Kubernetes version %q; write it as 1.MINOR", text)
	}
	minor, err := strconv.Atoi(parts[1])
	if err != nil {
		return Version{}, fmt.Errorf("invalid Kubernetes version %q; write it as 1.MINOR", text)
	}
	if len(parts) == 3 {
		if _, err := strconv.Atoi(parts[2]); err != nil {
			return Version{}, fmt.Errorf("invalid Kubernetes version %q; write it as 1.MINOR", text)
		}
	}
	if minor < OldestMinor || minor > ReleaseMinor {
		return Version{}, fmt.Errorf("Kubernetes 1.%d is not supported; the oracle judges 1.%d to 1.%d (exactly from 1.%d)",
			minor, OldestMinor, ReleaseMinor, OldestExactMinor)
	}
	return Version{Minor: minor}, nil
}

// SetFeatureGates sets every feature gate to its default at the target version, through
// component-base's emulation-version support (featuregate.SetEmulationVersion), as
// `kube-apiserver --emulated-version=1.MINOR` does. It must run before anything reads a gate.
func SetFeatureGates(target Version) error {
	return utilfeature.DefaultMutableFeatureGate.SetEmulationVersion(version.MajorMinor(1, uint(target.Minor)))
}
