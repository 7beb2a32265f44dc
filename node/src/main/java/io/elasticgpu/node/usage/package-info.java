/**
 * Who uses what on the node's cards: NVML's per-process memory and SM utilization, each process attributed to its
 * pod and container through its cgroup (or, for an MPS server, to the share its daemon holds), compared with what
 * the container was granted. It reads discovery, allocation's pods and isolation's owners, and never changes them.
 */
package io.elasticgpu.node.usage;
