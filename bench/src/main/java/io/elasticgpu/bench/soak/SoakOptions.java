package io.elasticgpu.bench.soak;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What {@code bench/run soak} was asked ({@code SoakCommand} reads and checks the options).
 *
 * @param duration   how long the load and the faults run at least, and on until every kind of fault has happened
 *                   once (then the drain and the final audit)
 * @param nodes      kwok GPU nodes, in the mix of 8-card (two NVLink islands), 4-card (NVLink pairs) and 2-card nodes
 * @param seed       seeds the pods' shapes, their lifetimes and the faults' order
 * @param faultEvery the time between two faults
 * @param burst      pods created at once by a burst fault
 * @param trace      the openb pod list the shapes are drawn from
 * @param json       where to write the summary as JSON, or null
 * @param restartsUntil after this long, the faults that restart our JVMs (extender and controller leader killed,
 *                      upgrade and rollback) are left out, so that each process then lives to the end and its heap's
 *                      slope is its own; null: all the run
 */
public record SoakOptions(
        Duration duration,
        int nodes,
        long seed,
        Duration faultEvery,
        int burst,
        Path trace,
        Path json,
        Duration restartsUntil) {}
