package main

import (
	"context"
	"fmt"
	"sync"

	"google.golang.org/grpc"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cri-client/pkg/util"
	"k8s.io/klog/v2"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
	podresourcesapiv1alpha1 "k8s.io/kubelet/pkg/apis/podresources/v1alpha1"

	apisgrpc "k8s.io/kubernetes/pkg/kubelet/apis/grpc"
	"k8s.io/kubernetes/pkg/kubelet/apis/podresources"
	"k8s.io/kubernetes/pkg/kubelet/cm/devicemanager"
)

// servePodResources serves kubelet's pod-resources API on socket the way kubelet's
// server.ListenAndServePodResources does (same rate limit, same v1alpha1 and v1 servers, same listener), without
// that function's os.Exit on errors and its endless blocking, and without compiling all of pkg/kubelet/server.
func servePodResources(socket string, pods *activePods, devices podresources.DevicesProvider) (*grpc.Server, error) {
	ctx := klog.NewContext(context.Background(), klog.Background())
	providers := podresources.PodResourcesProviders{
		Pods:             pods,
		Devices:          devices,
		Cpus:             noCPUs{},
		Memory:           noMemory{},
		DynamicResources: noDynamicResources{},
	}
	server := grpc.NewServer(apisgrpc.WithRateLimiter(ctx, "podresources", podresources.DefaultQPS,
		podresources.DefaultBurstTokens))
	podresourcesapiv1alpha1.RegisterPodResourcesListerServer(server, podresources.NewV1alpha1PodResourcesServer(providers))
	podresourcesapi.RegisterPodResourcesListerServer(server, podresources.NewV1PodResourcesServer(ctx, providers))
	listener, err := util.CreateListener("unix://" + socket)
	if err != nil {
		return nil, fmt.Errorf("pod-resources socket %s: %w", socket, err)
	}
	go func() {
		if err := server.Serve(listener); err != nil {
			klog.Background().Error(err, "Pod-resources server stopped", "socket", socket)
		}
	}()
	return server, nil
}

// activePods is kubelet's pod manager reduced to what the device manager and the pod-resources server ask of it:
// the pods admitted and not yet removed, in admission order.
type activePods struct {
	mu   sync.RWMutex
	pods []*v1.Pod
}

func (p *activePods) list() []*v1.Pod {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return append([]*v1.Pod(nil), p.pods...)
}

func (p *activePods) has(uid types.UID) bool {
	return p.get(uid) != nil
}

func (p *activePods) get(uid types.UID) *v1.Pod {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, pod := range p.pods {
		if pod.UID == uid {
			return pod
		}
	}
	return nil
}

func (p *activePods) add(pod *v1.Pod) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pods = append(p.pods, pod)
}

// remove says whether the pod was active.
func (p *activePods) remove(uid types.UID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, pod := range p.pods {
		if pod.UID == uid {
			p.pods = append(p.pods[:i:i], p.pods[i+1:]...)
			return true
		}
	}
	return false
}

// GetActivePods, GetPods and GetPodByName make activePods a podresources.PodsProvider. Kubelet's GetPods also
// lists terminated pods not yet cleaned up; here a removed pod is gone at once.
func (p *activePods) GetActivePods() []*v1.Pod { return p.list() }
func (p *activePods) GetPods() []*v1.Pod       { return p.list() }

func (p *activePods) GetPodByName(namespace, name string) (*v1.Pod, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	for _, pod := range p.pods {
		if pod.Namespace == namespace && pod.Name == name {
			return pod, true
		}
	}
	return nil, false
}

// deviceManager is kubelet's container manager as a podresources.DevicesProvider, always asking the device
// manager of the moment (restart replaces it).
type deviceManager struct{ k *kubelet }

func deviceManagerOf(k *kubelet) deviceManager { return deviceManager{k} }

func (d deviceManager) UpdateAllocatedDevices() { d.k.devices.Load().UpdateAllocatedDevices() }

func (d deviceManager) GetDevices(podUID, containerName string) []*podresourcesapi.ContainerDevices {
	return containerDevicesFromResourceDeviceInstances(d.k.devices.Load().GetDevices(podUID, containerName))
}

func (d deviceManager) GetAllocatableDevices() []*podresourcesapi.ContainerDevices {
	return containerDevicesFromResourceDeviceInstances(d.k.devices.Load().GetAllocatableDevices())
}

// containerDevicesFromResourceDeviceInstances is kubelet's own conversion (pkg/kubelet/cm/container_manager.go,
// unexported there), copied: one entry per device and NUMA node, devices without topology reported as they are.
func containerDevicesFromResourceDeviceInstances(devs devicemanager.ResourceDeviceInstances) []*podresourcesapi.ContainerDevices {
	var respDevs []*podresourcesapi.ContainerDevices
	for resourceName, resourceDevs := range devs {
		for devID, dev := range resourceDevs {
			topo := dev.GetTopology()
			if topo == nil {
				respDevs = append(respDevs, &podresourcesapi.ContainerDevices{
					ResourceName: resourceName,
					DeviceIds:    []string{devID},
				})
				continue
			}
			for _, node := range topo.GetNodes() {
				respDevs = append(respDevs, &podresourcesapi.ContainerDevices{
					ResourceName: resourceName,
					DeviceIds:    []string{devID},
					Topology: &podresourcesapi.TopologyInfo{
						Nodes: []*podresourcesapi.NUMANode{{ID: node.GetID()}},
					},
				})
			}
		}
	}
	return respDevs
}

// The node has no exclusive CPUs, no NUMA-pinned memory and no DRA claims: kubelet's providers answer empty then.
type noCPUs struct{}

func (noCPUs) GetCPUs(string, string) []int64 { return nil }
func (noCPUs) GetAllocatableCPUs() []int64    { return nil }

type noMemory struct{}

func (noMemory) GetMemory(string, string) []*podresourcesapi.ContainerMemory { return nil }
func (noMemory) GetAllocatableMemory() []*podresourcesapi.ContainerMemory    { return nil }

type noDynamicResources struct{}

func (noDynamicResources) GetDynamicResources(*v1.Pod, *v1.Container) []*podresourcesapi.DynamicResource {
	return nil
}
