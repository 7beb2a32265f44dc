/**
 * Turning event logs into the protocol's metrics (allocation ratio per arrival level, first failure,
 * fragmentation) and those into tables, JSON and charts. It reads replay results and must never run a replay.
 */
package io.elasticgpu.simulator.report;
