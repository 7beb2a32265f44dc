/**
 * Test peers for the device plugin: kubelet's own device manager and pod-resources server, run by the Go program in
 * {@code node/kubelet-driver} and driven over JSON lines. It owns no production code and must never be imported from
 * {@code src/main}.
 */
package io.elasticgpu.node.kubelet;
