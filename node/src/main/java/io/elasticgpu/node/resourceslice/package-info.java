/**
 * The node's cards as a DRA ResourceSlice ({@code resource.k8s.io/v1}, driver {@code gpu.elasticgpu.io}, pool = node
 * name): one shareable device per card with its attributes, consumable memory and cores, and a taint while it is
 * unhealthy. It describes and writes the slice; it must never decide who gets a card (kube-scheduler's allocator
 * does) and never import the device plugin.
 */
package io.elasticgpu.node.resourceslice;
