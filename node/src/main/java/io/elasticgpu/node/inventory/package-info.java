/**
 * Publishes the node's GPUs to the cluster: labels for node selectors and taints (product, memory, count, driver)
 * and the per-card inventory annotation (capacity, health, links) the extender schedules from. It turns discovery
 * and health into API objects and must never import gRPC types.
 */
package io.elasticgpu.node.inventory;
