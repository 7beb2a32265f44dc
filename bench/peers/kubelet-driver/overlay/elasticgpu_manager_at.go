// Not part of upstream Kubernetes. bench/peers/kubelet-driver/build adds this one file to the module cache's
// k8s.io/kubernetes/pkg/kubelet/cm/devicemanager with `go build -overlay`, so that the driver can run kubelet's
// device manager on a socket of its choosing: the exported NewManagerImpl always listens on
// /var/lib/kubelet/device-plugins/kubelet.sock. Every other file of the package is upstream's, unchanged.

package devicemanager

import (
	cadvisorapi "github.com/google/cadvisor/info/v1"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/kubelet/cm/topologymanager"
)

// NewManagerImplAt is NewManagerImpl with the kubelet's registration socket, and so its checkpoint directory, at
// socketPath (absolute) instead of the fixed kubelet path.
func NewManagerImplAt(logger klog.Logger, socketPath string, topology []cadvisorapi.Node,
	topologyAffinityStore topologymanager.Store) (*ManagerImpl, error) {
	return newManagerImpl(logger, socketPath, topology, topologyAffinityStore)
}
