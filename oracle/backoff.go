package main

import (
	"time"

	"k8s.io/client-go/util/flowcontrol"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config/v1beta1"
	testingclock "k8s.io/utils/clock/testing"
)

// initialCrashLoopBackOff is the kubelet's first back-off before restarting a failed container
// (pkg/kubelet/kubelet.go, unexported; the kubelet builds its flowcontrol.Backoff from it and
// MaxContainerBackOff, the default of `crashLoopBackOff.maxContainerRestartPeriod`).
const initialCrashLoopBackOff = 10 * time.Second

// RestartDelay is how long the kubelet waits before restarting a container that has failed,
// in the oracle's `--restart-delays` output contract (README.md).
type RestartDelay struct {
	// Restart is 1 for the first restart.
	Restart int `json:"restart"`
	// Seconds from the container's exit until the kubelet starts it again.
	Seconds float64 `json:"seconds"`
}

// RestartDelays runs the kubelet's own back-off (client-go's flowcontrol.Backoff, as
// kuberuntime_manager.go's doBackOff calls it) for a container that fails the moment it starts,
// `restarts` times: at each sync the kubelet restarts it unless IsInBackOffSince says it is
// still backing off since its exit, and then moves the back-off on with Next.
func RestartDelays(restarts int) []RestartDelay {
	clock := testingclock.NewFakeClock(time.Unix(0, 0))
	backOff := flowcontrol.NewFakeBackOff(initialCrashLoopBackOff, kubeletconfig.MaxContainerBackOff, clock)
	const key = "pod_container"
	delays := make([]RestartDelay, 0, restarts)
	for restart := 1; restart <= restarts; restart++ {
		finished := clock.Now()
		// doBackOff: while backing off, the pod worker syncs again when the back-off ends.
		for backOff.IsInBackOffSince(key, finished) {
			clock.SetTime(finished.Add(backOff.Get(key)))
		}
		backOff.Next(key, finished)
		delays = append(delays, RestartDelay{Restart: restart, Seconds: clock.Since(finished).Seconds()})
	}
	return delays
}
