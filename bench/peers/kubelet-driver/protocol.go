package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
)

// command is one stdin line; which fields matter depends on op (see the package comment).
type command struct {
	Op          string  `json:"op"`
	Pod         *v1.Pod `json:"pod,omitempty"`
	UID         string  `json:"uid,omitempty"`
	Resource    string  `json:"resource,omitempty"`
	Allocatable *int64  `json:"allocatable,omitempty"`
	TimeoutMs   int64   `json:"timeoutMs,omitempty"`
	Driver      string  `json:"driver,omitempty"`
	Registered  *bool   `json:"registered,omitempty"`
}

// reply is one stdout line.
type reply struct {
	OK         bool                           `json:"ok"`
	Reason     string                         `json:"reason,omitempty"`
	Container  string                         `json:"container,omitempty"`
	Error      string                         `json:"error,omitempty"`
	Containers map[string]containerResult     `json:"containers,omitempty"`
	Health     map[string][]v1.ResourceStatus `json:"health,omitempty"`
	*capacities
}

// capacities is what GetCapacity returns: device counts by resource, and the resources gone for good.
type capacities struct {
	Capacity    map[string]int64 `json:"capacity"`
	Allocatable map[string]int64 `json:"allocatable"`
	Deleted     []string         `json:"deleted"`
}

func failure(err error) reply {
	return reply{OK: false, Error: err.Error()}
}

// containerResult is what the container runtime would be given for one container: the devices the device manager
// assigned it and the union of the plugins' Allocate responses, as GetDeviceRunContainerOptions merged them.
type containerResult struct {
	Devices     map[string][]string `json:"devices"`
	Envs        map[string]string   `json:"envs"`
	Mounts      []mount             `json:"mounts"`
	DeviceSpecs []deviceSpec        `json:"deviceSpecs"`
	Annotations map[string]string   `json:"annotations"`
	CDIDevices  []string            `json:"cdiDevices"`
}

type mount struct {
	ContainerPath string `json:"containerPath"`
	HostPath      string `json:"hostPath"`
	ReadOnly      bool   `json:"readOnly"`
}

type deviceSpec struct {
	ContainerPath string `json:"containerPath"`
	HostPath      string `json:"hostPath"`
	Permissions   string `json:"permissions"`
}

func newContainerResult(assigned devicemanager.ResourceDeviceInstances,
	opts *devicemanager.DeviceRunContainerOptions) containerResult {
	r := containerResult{Devices: map[string][]string{}, Envs: map[string]string{}, Mounts: []mount{},
		DeviceSpecs: []deviceSpec{}, Annotations: map[string]string{}, CDIDevices: []string{}}
	for resource, devices := range assigned {
		ids := make([]string, 0, len(devices))
		for id := range devices {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		r.Devices[resource] = ids
	}
	if opts == nil { // no device plugin resources in this container
		return r
	}
	for _, e := range opts.Envs {
		r.Envs[e.Name] = e.Value
	}
	for _, m := range opts.Mounts {
		r.Mounts = append(r.Mounts, mount{ContainerPath: m.ContainerPath, HostPath: m.HostPath, ReadOnly: m.ReadOnly})
	}
	for _, d := range opts.Devices {
		r.DeviceSpecs = append(r.DeviceSpecs,
			deviceSpec{ContainerPath: d.PathInContainer, HostPath: d.PathOnHost, Permissions: d.Permissions})
	}
	for _, a := range opts.Annotations {
		r.Annotations[a.Name] = a.Value
	}
	for _, c := range opts.CDIDevices {
		r.CDIDevices = append(r.CDIDevices, c.Name)
	}
	return r
}

func newCapacityReply(capacity, allocatable v1.ResourceList, deleted []string) reply {
	r := reply{OK: true, capacities: &capacities{Capacity: map[string]int64{}, Allocatable: map[string]int64{},
		Deleted: []string{}}}
	for name, q := range capacity {
		r.Capacity[string(name)] = q.Value()
	}
	for name, q := range allocatable {
		r.Allocatable[string(name)] = q.Value()
	}
	r.Deleted = append(r.Deleted, deleted...)
	sort.Strings(r.Deleted)
	return r
}

// awaitPoll is how often await asks GetCapacity, which kubelet itself does on every node status update (10 s).
const awaitPoll = 20 * time.Millisecond

// handle runs one command and says whether it was the last one.
func (k *kubelet) handle(line []byte) (reply, bool) {
	var c command
	if err := json.Unmarshal(line, &c); err != nil {
		return failure(fmt.Errorf("bad command %q: %w", truncate(line), err)), false
	}
	switch c.Op {
	case "admit":
		if c.Pod == nil {
			return failure(fmt.Errorf("admit: no pod")), false
		}
		return k.admit(c.Pod), false
	case "sync":
		if c.UID == "" {
			return failure(fmt.Errorf("sync: no uid")), false
		}
		pod := k.pods.get(types.UID(c.UID))
		if pod == nil {
			return failure(fmt.Errorf("sync: no active pod has uid %s", c.UID)), false
		}
		return k.sync(pod), false
	case "remove":
		if c.UID == "" {
			return failure(fmt.Errorf("remove: no uid")), false
		}
		if err := k.terminate(types.UID(c.UID)); err != nil {
			return failure(fmt.Errorf("remove: %w", err)), false
		}
		return reply{OK: true}, false
	case "health":
		pod := k.pods.get(types.UID(c.UID))
		if pod == nil {
			return failure(fmt.Errorf("health: no active pod has uid %q", c.UID)), false
		}
		if k.dra == nil {
			return failure(fmt.Errorf("health: DRA is off; start the driver with --kubeconfig")), false
		}
		return reply{OK: true, Health: k.dra.health(pod)}, false
	case "awaitDriver":
		if c.Driver == "" || c.TimeoutMs <= 0 {
			return failure(fmt.Errorf("awaitDriver: driver and a positive timeoutMs are required")), false
		}
		registered := c.Registered == nil || *c.Registered
		return k.awaitDriver(c.Driver, registered, time.Duration(c.TimeoutMs)*time.Millisecond), false
	case "capacity":
		return k.capacity(), false
	case "await":
		if c.Resource == "" || c.Allocatable == nil || c.TimeoutMs <= 0 {
			return failure(fmt.Errorf("await: resource, allocatable and a positive timeoutMs are required")), false
		}
		return k.await(c.Resource, *c.Allocatable, time.Duration(c.TimeoutMs)*time.Millisecond), false
	case "restart":
		if err := k.restart(); err != nil {
			return failure(fmt.Errorf("restart: %w", err)), false
		}
		return reply{OK: true}, false
	case "stop":
		k.stop()
		return reply{OK: true}, true
	default:
		return failure(fmt.Errorf("unknown op %q; known: admit, sync, remove, capacity, await, awaitDriver, health, restart, stop", c.Op)), false
	}
}

func (k *kubelet) await(resource string, allocatable int64, timeout time.Duration) reply {
	deadline := time.Now().Add(timeout)
	for {
		r := k.capacity()
		got := r.Allocatable[resource]
		if got == allocatable {
			return r
		}
		if time.Now().After(deadline) {
			return failure(fmt.Errorf("timeout: allocatable %s is %d", resource, got))
		}
		time.Sleep(awaitPoll)
	}
}

func (k *kubelet) awaitDriver(driver string, registered bool, timeout time.Duration) reply {
	if k.draConfig == nil {
		return failure(fmt.Errorf("awaitDriver: DRA is off; start the driver with --kubeconfig"))
	}
	deadline := time.Now().Add(timeout)
	for k.driverRegistered(driver) != registered {
		if time.Now().After(deadline) {
			return failure(fmt.Errorf("timeout: DRA driver %s: registered is still %t", driver, !registered))
		}
		time.Sleep(awaitPoll)
	}
	return reply{OK: true}
}

func truncate(line []byte) string {
	if len(line) > 200 {
		return string(line[:200]) + "..."
	}
	return string(line)
}
