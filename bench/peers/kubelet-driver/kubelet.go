package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/kubelet/cm/containermap"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
	"k8s.io/kubernetes/pkg/kubelet/cm/resourceupdates"
	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
	"k8s.io/kubernetes/pkg/kubelet/config"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
)

// kubelet holds what a kubelet would for this purpose: its active pods, its device manager (replaced on restart)
// with the topology manager that admits pods through it, its pod-resources server, and, when started with an API
// server, its DRA manager and plugin manager (replaced on restart). Commands run one at a time
// on the main goroutine, as kubelet admits pods one at a time; the device manager's gRPC goroutines (registration,
// ListAndWatch) and the pod-resources server read the pods and the current device manager concurrently.
type kubelet struct {
	pluginDir          string
	podResourcesSocket string
	pods               *activePods
	devices            atomic.Pointer[devicemanager.ManagerImpl]
	topology           topologymanager.Manager // used by the command goroutine only
	stopDraining       chan struct{}
	podResources       *grpc.Server
	draConfig          *draConfig // nil: no DRA
	dra                *draSide   // used by the command goroutine only
	stopOnce           sync.Once
}

func startKubelet(pluginDir, podResourcesSocket string, draConfig *draConfig) (*kubelet, error) {
	k := &kubelet{pluginDir: pluginDir, podResourcesSocket: podResourcesSocket, pods: &activePods{},
		draConfig: draConfig}
	if err := k.startDeviceManager(); err != nil {
		return nil, err
	}
	if err := k.startDRA(); err != nil {
		k.stop()
		return nil, err
	}
	server, err := servePodResources(podResourcesSocket, k.pods, deviceManagerOf(k))
	if err != nil {
		k.stop()
		return nil, err
	}
	k.podResources = server
	return k, nil
}

func (k *kubelet) kubeletSocket() string {
	return filepath.Join(k.pluginDir, "kubelet.sock")
}

// startDeviceManager wires a device manager as kubelet's container manager does (pkg/kubelet/cm,
// NewContainerManager and Start): a topology manager with kubelet's default policy none as its affinity store and
// admit handler, the device manager as that topology manager's hint provider, and Start with the active pods, a
// sources-ready that is always ready (the API server has been seen), and no containers known to the runtime.
func (k *kubelet) startDeviceManager() error {
	logger := klog.Background()
	topology, err := topologymanager.NewManager(nil, topologymanager.PolicyNone,
		topologymanager.ContainerTopologyScope, nil)
	if err != nil {
		return fmt.Errorf("topology manager: %w", err)
	}
	m, err := devicemanager.NewManagerImplAt(logger, k.kubeletSocket(), nil, topology)
	if err != nil {
		return fmt.Errorf("device manager at %s: %w", k.kubeletSocket(), err)
	}
	topology.AddHintProvider(logger, m)
	sourcesReady := config.NewSourcesReady(func(sets.Set[string]) bool { return true })
	if err := m.Start(logger, k.pods.list, sourcesReady, containermap.NewContainerMap(), sets.New[string]()); err != nil {
		return fmt.Errorf("starting the device manager at %s: %w", k.kubeletSocket(), err)
	}
	k.topology = topology
	k.devices.Store(m)
	// Kubelet turns device health updates into pod status updates; nothing here needs them, but an unread channel
	// fills up and makes the device manager log errors.
	k.stopDraining = make(chan struct{})
	go func(updates <-chan resourceupdates.Update, stop <-chan struct{}) {
		for {
			select {
			case <-updates:
			case <-stop:
				return
			}
		}
	}(m.Updates(), k.stopDraining)
	return nil
}

func (k *kubelet) stopDeviceManager() {
	if m := k.devices.Load(); m != nil {
		if err := m.Stop(klog.Background()); err != nil {
			klog.Background().Error(err, "Stopping the device manager")
		}
	}
	if k.stopDraining != nil {
		close(k.stopDraining)
		k.stopDraining = nil
	}
	removeSocket(k.kubeletSocket())
}

func (k *kubelet) startDRA() error {
	if k.draConfig == nil {
		return nil
	}
	side, err := startDRA(k.draConfig, k.pods)
	if err != nil {
		return err
	}
	k.dra = side
	return nil
}

func (k *kubelet) stopDRA() {
	if k.dra != nil {
		k.dra.close()
		k.dra = nil
	}
}

func (k *kubelet) stop() {
	k.stopOnce.Do(func() {
		if k.podResources != nil {
			k.podResources.Stop()
		}
		removeSocket(k.podResourcesSocket)
		k.stopDeviceManager()
		k.stopDRA()
	})
}

func removeSocket(path string) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		klog.Background().Error(err, "Removing socket", "path", path)
	}
}

// admit does what kubelet does between seeing a new pod and starting its containers, as far as devices go: the
// pod joins the active pods, the allocate-resources admit handler (the topology manager) admits it, and the
// runtime options of each container are generated. A rejected pod leaves the active pods again.
func (k *kubelet) admit(pod *v1.Pod) reply {
	if pod.UID == "" {
		return failure(fmt.Errorf("pod %s/%s has no metadata.uid; the API server gives every pod one, set it",
			pod.Namespace, pod.Name))
	}
	if k.pods.has(pod.UID) {
		return failure(fmt.Errorf("pod %s/%s: uid %s is already active; remove it first", pod.Namespace, pod.Name,
			pod.UID))
	}
	others := k.pods.list()
	k.pods.add(pod)
	result := k.topology.Admit(&lifecycle.PodAdmitAttributes{Pod: pod, OtherPods: others})
	if !result.Admit {
		k.pods.remove(pod.UID)
		return reply{OK: false, Reason: result.Reason, Error: result.Message}
	}
	return k.sync(pod)
}

// sync is kubelet's SyncPod for an admitted pod, as far as devices go: its DRA claims are prepared, then each
// container's runtime options are generated (device plugins' options plus the claims' CDI devices). A failure
// leaves the pod admitted; kubelet retries SyncPod, here the caller does (op sync).
func (k *kubelet) sync(pod *v1.Pod) reply {
	if k.dra != nil {
		if err := k.dra.prepare(pod); err != nil {
			// kubelet's SyncPod returns this error; the pod's event reason is FailedPrepareDynamicResources.
			return reply{OK: false, Reason: "FailedPrepareDynamicResources", Error: err.Error()}
		}
	}
	m := k.devices.Load()
	containers := make(map[string]containerResult)
	for _, c := range append(append([]v1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...) {
		opts, err := m.GetDeviceRunContainerOptions(context.Background(), pod, &c)
		if err != nil {
			// kuberuntime reports a failure to generate the container config with this reason and retries later.
			return reply{OK: false, Reason: "CreateContainerConfigError", Container: c.Name, Error: err.Error()}
		}
		r := newContainerResult(m.GetDevices(string(pod.UID), c.Name), opts)
		if k.dra != nil {
			ids, err := k.dra.cdiDevices(pod, &c)
			if err != nil {
				return reply{OK: false, Reason: "CreateContainerConfigError", Container: c.Name, Error: err.Error()}
			}
			r.CDIDevices = append(r.CDIDevices, ids...)
		}
		containers[c.Name] = r
	}
	return reply{OK: true, Containers: containers}
}

// terminate is kubelet's SyncTerminatedPod then the pod's removal: its claims are unprepared, then it leaves the
// active pods and its devices free. When unprepare fails the pod stays, as kubelet keeps it until it succeeds.
func (k *kubelet) terminate(uid types.UID) error {
	pod := k.pods.get(uid)
	if pod == nil {
		return fmt.Errorf("no active pod has uid %s", uid)
	}
	if k.dra != nil {
		if err := k.dra.unprepare(pod); err != nil {
			return err
		}
	}
	k.pods.remove(uid)
	return nil
}

func (k *kubelet) driverRegistered(driver string) bool {
	return k.dra != nil && k.dra.driverRegistered(driver)
}

func (k *kubelet) capacity() reply {
	capacity, allocatable, deleted := k.devices.Load().GetCapacity()
	return newCapacityReply(capacity, allocatable, deleted)
}

// restart is kubelet restarting, with the pods still running: a new device manager at the same socket reads the
// checkpoint left in the plugin directory, and plugins must register again; a new DRA manager reads its checkpoint
// and a new plugin manager finds the DRA drivers' registration sockets still in the registration directory (and,
// as kubelet does at startup, wipes the node's ResourceSlices until their drivers publish them again).
func (k *kubelet) restart() error {
	k.stopDeviceManager()
	k.stopDRA()
	if err := k.startDeviceManager(); err != nil {
		return err
	}
	return k.startDRA()
}
