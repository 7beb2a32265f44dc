/**
 * The arena, {@code bench/run arena}: peers' schedulers on the same trace, nodes and order as ours, each
 * in a fresh real control plane ({@link io.elasticgpu.bench.arena.Arena}). A {@link
 * io.elasticgpu.bench.arena.Contender}
 * says how its nodes look, how its pods ask and which scheduler it runs: Elastic GPU as the chart ships it, HAMi's
 * scheduler extender ({@link io.elasticgpu.bench.arena.HamiScheduler}, with what its device plugin would publish,
 * {@link io.elasticgpu.bench.arena.HamiRegistration}, and the part of it its scheduler waits for,
 * {@link io.elasticgpu.bench.arena.HamiNodeStandIn}), or whole cards with the default kube-scheduler. Each is audited
 * from its own records ({@link io.elasticgpu.bench.arena.HamiAudit} for HAMi's) into a
 * {@link io.elasticgpu.bench.arena.Standing}; {@link io.elasticgpu.bench.arena.ArenaReport} prints the table and draws
 * the curves.
 */
package io.elasticgpu.bench.arena;
