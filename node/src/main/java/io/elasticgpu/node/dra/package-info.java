/**
 * Preparing DRA claims on the node: reading what kube-scheduler's allocator gave a ResourceClaim on this node's
 * pool, writing the CDI spec that hands the cards to the containers (the same environment as the device plugin
 * path), and the checkpoint that makes prepare and unprepare idempotent across agent restarts. It must never choose
 * a card (the allocation in the claim is the decision) and never import gRPC.
 */
package io.elasticgpu.node.dra;
