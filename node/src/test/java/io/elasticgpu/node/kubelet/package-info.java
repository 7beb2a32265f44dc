/**
 * Test peers for the device plugin: kubelet's own device manager and pod-resources server, run by the Go program in
 * {@code bench/peers/kubelet-driver} (a peer the lab keeps, outside the shipped module) and driven over JSON lines. It
 * owns no production code and must never be imported from {@code src/main}.
 */
package io.elasticgpu.node.kubelet;
