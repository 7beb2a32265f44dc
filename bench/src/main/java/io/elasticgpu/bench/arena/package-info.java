/**
 * The arena (issue 17): peers' schedulers run beside ours on the same trace in the same real control plane. Here:
 * what HAMi's device plugin would publish on a node, written from our inventory ({@link
 * io.elasticgpu.bench.arena.HamiRegistration}), and the part of HAMi's device plugin its scheduler waits for after a
 * bind ({@link io.elasticgpu.bench.arena.HamiNodeStandIn}), so that HAMi's scheduler extender can schedule onto kwok
 * nodes.
 */
package io.elasticgpu.bench.arena;
