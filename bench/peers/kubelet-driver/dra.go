package main

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	pluginwatcherapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"

	"k8s.io/kubernetes/pkg/kubelet/cm/dra"
	draplugin "k8s.io/kubernetes/pkg/kubelet/cm/dra/plugin"
	"k8s.io/kubernetes/pkg/kubelet/config"
	"k8s.io/kubernetes/pkg/kubelet/pluginmanager"
)

// draConfig is what kubelet's DRA side needs: the API server (claims are read from it, a node's ResourceSlices are
// wiped through it), the node's name, the plugin registration directory kubelet watches
// (/var/lib/kubelet/plugins_registry) and the directory of the DRA manager's checkpoint (kubelet's root directory).
type draConfig struct {
	nodeName     string
	registryDir  string
	stateDir     string
	client       kubernetes.Interface
	sourcesReady config.SourcesReady
}

func newDRAConfig(kubeconfig, nodeName, registryDir, stateDir string) (*draConfig, error) {
	rest, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(rest)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	return &draConfig{nodeName: nodeName, registryDir: registryDir, stateDir: stateDir,
		client: client, sourcesReady: config.NewSourcesReady(func(sets.Set[string]) bool { return true })}, nil
}

// draSide is kubelet's DRA manager (pkg/kubelet/cm/dra) with the plugin manager (pkg/kubelet/pluginmanager) that
// registers DRA drivers with it, wired as kubelet wires them (NewContainerManager, then kubelet's
// initializeRuntimeDependentModules: Start the manager, hand its watcher handler to the plugin manager under the
// DRAPlugin type, run the plugin manager on the registration directory). Restart replaces both.
type draSide struct {
	manager *dra.Manager
	cancel  context.CancelFunc
	stop    chan struct{}
	done    chan struct{}
}

func startDRA(c *draConfig, pods *activePods) (*draSide, error) {
	logger := klog.Background()
	m, err := dra.NewManager(logger, c.client, c.stateDir)
	if err != nil {
		return nil, fmt.Errorf("DRA manager in %s: %w", c.stateDir, err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	getNode := func(ctx context.Context) (*v1.Node, error) {
		return c.client.CoreV1().Nodes().Get(ctx, c.nodeName, metav1.GetOptions{})
	}
	if err := m.Start(ctx, pods.list, getNode, c.sourcesReady); err != nil {
		cancel()
		return nil, fmt.Errorf("starting the DRA manager: %w", err)
	}
	s := &draSide{manager: m, cancel: cancel, stop: make(chan struct{}), done: make(chan struct{})}
	// Kubelet turns device health updates into pod status updates; as with the device manager, nothing here needs
	// them, but an unread channel fills up.
	go func() {
		for {
			select {
			case <-m.Updates():
			case <-ctx.Done():
				return
			}
		}
	}()
	// The plugin manager keeps the event recorder it is given and records nothing with it (v1.36.3).
	plugins := pluginmanager.NewPluginManager(c.registryDir, nil)
	plugins.AddHandler(pluginwatcherapi.DRAPlugin, m.GetWatcherHandler())
	go func() {
		defer close(s.done)
		plugins.Run(ctx, c.sourcesReady, s.stop)
	}()
	return s, nil
}

// close stops the plugin manager and the DRA manager's background work; registered drivers' connections close.
func (s *draSide) close() {
	close(s.stop)
	s.cancel()
	if plugins, ok := s.manager.GetWatcherHandler().(*draplugin.DRAPluginManager); ok {
		plugins.Stop()
	}
	<-s.done
}

// driverRegistered says whether a plugin of driver has registered and is usable, as PrepareResources would find it.
func (s *draSide) driverRegistered(driver string) bool {
	plugins, ok := s.manager.GetWatcherHandler().(*draplugin.DRAPluginManager)
	if !ok {
		return false
	}
	_, err := plugins.GetPlugin(driver)
	return err == nil
}

// prepare is kubelet's SyncPod before it creates the sandbox: the pod's claims are fetched, checked to be reserved
// for it and prepared by their drivers (NodePrepareResources).
func (s *draSide) prepare(pod *v1.Pod) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return s.manager.PrepareResources(ctx, pod)
}

// unprepare is kubelet's SyncTerminatedPod: the claims the pod no longer needs are unprepared
// (NodeUnprepareResources) once no other pod on the node uses them.
func (s *draSide) unprepare(pod *v1.Pod) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return s.manager.UnprepareResources(ctx, pod)
}

// cdiDevices is the CDI device ids the runtime is given for one container (kubelet's containerManager.GetResources
// adds them to the device plugins' options).
func (s *draSide) cdiDevices(pod *v1.Pod, container *v1.Container) ([]string, error) {
	info, err := s.manager.GetResources(pod, container)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(info.CDIDevices))
	for _, d := range info.CDIDevices {
		ids = append(ids, d.Name)
	}
	return ids, nil
}

// health is what kubelet writes into the pod's container statuses (allocatedResourcesStatus) from the health its
// drivers stream to it (DRAResourceHealth.NodeWatchResources): for each container, one entry per claim it uses,
// with the health of each of the claim's devices.
func (s *draSide) health(pod *v1.Pod) map[string][]v1.ResourceStatus {
	status := v1.PodStatus{}
	for _, c := range pod.Spec.Containers {
		status.ContainerStatuses = append(status.ContainerStatuses, v1.ContainerStatus{Name: c.Name})
	}
	s.manager.UpdateAllocatedResourcesStatus(pod, &status)
	health := make(map[string][]v1.ResourceStatus)
	for _, c := range status.ContainerStatuses {
		health[c.Name] = append([]v1.ResourceStatus{}, c.AllocatedResourcesStatus...)
	}
	return health
}
