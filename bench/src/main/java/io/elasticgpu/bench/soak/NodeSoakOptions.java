package io.elasticgpu.bench.soak;

import java.nio.file.Path;

/**
 * What {@code bench/run node-soak} was asked ({@code NodeSoakCommand} reads and checks the options).
 *
 * @param pods       pods admitted on the node in all (each runs until the soak removes it to make room or at random)
 * @param seed       seeds the pods' shapes, the order of removals and the faults
 * @param faultEvery steps between two faults; the four kinds take turns in a shuffled order
 * @param trace      the openb pod list the shapes are drawn from
 * @param json       where to write the summary as JSON, or null
 */
public record NodeSoakOptions(int pods, long seed, int faultEvery, Path trace, Path json) {}
