/**
 * kubelet's gRPC APIs over unix sockets: the device plugin API v1beta1 (one plugin per advertised resource,
 * registration on {@code kubelet.sock}, re-registration when kubelet restarts, calls translated to
 * {@link io.elasticgpu.node.allocation.Allocator}) and the pod-resources API v1 client. It only translates; it must
 * never decide which card a container
 * gets, and never import Kubernetes API types.
 */
package io.elasticgpu.node.deviceplugin;
