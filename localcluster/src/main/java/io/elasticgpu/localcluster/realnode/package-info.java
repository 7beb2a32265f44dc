/**
 * A real Kubernetes node for end-to-end tests: kubelet, containerd with CDI, runc and CNI plugins, all built from
 * source, joined to the local control plane beside the kwok nodes, with images imported without a registry; started,
 * waited for and torn down (containers, mounts, network, cgroups) like the control plane's programs. It may use the
 * control plane and run {@code egpu} as a process, and must never import component code.
 */
package io.elasticgpu.localcluster.realnode;
