/**
 * Benchmarks, run by hand with {@code bench/run}: how fast a replay is against named baselines, and how close our
 * replays of the paper's policies come to its published results. Nothing here is a test; it prints measurements.
 */
package io.elasticgpu.bench;
