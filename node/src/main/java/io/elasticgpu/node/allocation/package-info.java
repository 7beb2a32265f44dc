/**
 * Decides what a container gets when kubelet admits it: which pod and container an {@code Allocate} call is for,
 * the cards the extender planned for it, a node-level capacity check, and the truth written back to the pod. It
 * works on its own records and must never import gRPC types; Kubernetes types appear only in the classes that read
 * pods ({@link io.elasticgpu.node.allocation.ClusterPods}) and write annotations.
 */
package io.elasticgpu.node.allocation;
